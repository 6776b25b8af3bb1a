"""Generate a tiny random-weight llama GGUF so tests can run a REAL llama.cpp server with
no model download.

The model is nonsense but well-formed: 2 layers, 64-dim, F32, an SPM vocabulary with all 256
byte-fallback tokens (llama.cpp's tokenizer needs every one of them, otherwise unknown
characters crash it with HTTP 500), a few words and printable characters.  Two tweaks make
replies usable in tests: control/byte rows of the output matrix are zero (so generated text
is printable), and the EOS row is a slightly scaled copy of one word's row, so the model
stops by itself after a handful of tokens.  Seeded: the file is identical on every run.
"""

from __future__ import annotations

import sys
from pathlib import Path

N_EMBD = 64
N_HEAD = 4
N_LAYER = 2
N_FF = 128
N_CTX_TRAIN = 8192
WORDS = ["hello", "world", "milk", "local", "model", "the", "a", "is", "and", "to"]
CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,!?'-"
SPACE = "\u2581"  # SentencePiece's word-boundary marker
STOP_WORD = SPACE + "hello"
EOS_BOOST = 1.05
"""EOS scores 5 % above the stop word wherever that word would win: replies end soon."""
CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant: {% endif %}"
)


def _vocab() -> tuple[list[bytes], list[float], list[int], int]:
    import gguf

    toks: list[bytes] = []
    scores: list[float] = []
    types: list[int] = []

    def add(text: str, score: float, kind: int) -> None:
        toks.append(text.encode())
        scores.append(score)
        types.append(kind)

    add("<unk>", 0.0, gguf.TokenType.UNKNOWN)
    add("<s>", 0.0, gguf.TokenType.CONTROL)
    add("</s>", 0.0, gguf.TokenType.CONTROL)
    for byte in range(256):
        add(f"<0x{byte:02X}>", 0.0, gguf.TokenType.BYTE)
    n_special = len(toks)
    normal = [SPACE + w for w in WORDS] + list(CHARS) + [SPACE]
    for rank, piece in enumerate(normal):
        add(piece, -float(rank), gguf.TokenType.NORMAL)
    return toks, scores, types, n_special


def write_tiny_gguf(path: str | Path) -> Path:
    """Write the model to ``path`` (≈0.5 MB, well under a second) and return the path."""
    import gguf
    import numpy as np

    path = Path(path)
    rng = np.random.default_rng(20240601)
    toks, scores, types, n_special = _vocab()
    n_vocab = len(toks)

    def rand(*shape: int, scale: float = 0.02) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def ones(n: int) -> np.ndarray:
        return np.ones(n, dtype=np.float32)

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("milk-tiny-random")
    w.add_context_length(N_CTX_TRAIN)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD)
    w.add_rope_dimension_count(N_EMBD // N_HEAD)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(toks)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.add_chat_template(CHAT_TEMPLATE)

    w.add_tensor("token_embd.weight", rand(n_vocab, N_EMBD))
    w.add_tensor("output_norm.weight", ones(N_EMBD))
    head = rand(n_vocab, N_EMBD, scale=1.0)
    head[:n_special] = 0.0
    head[2] = head[toks.index(STOP_WORD.encode())] * EOS_BOOST
    w.add_tensor("output.weight", head)
    for layer in range(N_LAYER):
        pre = f"blk.{layer}."
        w.add_tensor(pre + "attn_norm.weight", ones(N_EMBD))
        for proj in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(f"{pre}{proj}.weight", rand(N_EMBD, N_EMBD))
        w.add_tensor(pre + "ffn_norm.weight", ones(N_EMBD))
        w.add_tensor(pre + "ffn_gate.weight", rand(N_FF, N_EMBD))
        w.add_tensor(pre + "ffn_up.weight", rand(N_FF, N_EMBD))
        w.add_tensor(pre + "ffn_down.weight", rand(N_EMBD, N_FF))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


if __name__ == "__main__":
    print(write_tiny_gguf(sys.argv[1] if len(sys.argv) > 1 else "tiny.gguf"))
