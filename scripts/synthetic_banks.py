#!/usr/bin/env python3
"""Synthetic question banks in the real format, for benchmarks and search evaluation.

`python scripts/synthetic_banks.py DEST --questions N [--per-bank 50] [--seed 0]` writes
DEST/syn-001.txt ... (Chinese) and DEST/syn-001.en.txt ... (English, lined up block for block with
the Chinese), plus a copy of the seed's taxonomy.yml (tests/fixtures/banks) so the pages get tags.

Vocabulary: frequent Chinese words from jieba's dictionary (weighted by frequency), AI-infra terms
in both languages (AllReduce, KV Cache, 张量并行 ...) and English words from the seed bank's English
text plus a built-in list of common technical words. Questions are unique in both languages, and the
same arguments always give the same files.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import shutil
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED_BANKS = ROOT / "tests" / "fixtures" / "banks"
"""The frozen copy of the seed banks: synthetic corpora (their English words, their taxonomy) stay the
same when a maintainer edits banks/, and the fast tests never read the user's banks."""
TAXONOMY = SEED_BANKS / "taxonomy.yml"
ZH_VOCAB = 25_000
"""How many of jieba's most frequent words (2 to 4 characters) are drawn from."""
SINGLE_CHARS = 150
"""How many of its commonest single characters."""
TERM_SHARE = 0.16
"""Share of technical terms among an answer's words."""

# (Chinese, English) technical terms; ASCII names appear the same in both languages.
TERMS: tuple[tuple[str, str], ...] = (
    ("张量并行", "tensor parallelism"),
    ("流水线并行", "pipeline parallelism"),
    ("数据并行", "data parallelism"),
    ("序列并行", "sequence parallelism"),
    ("专家并行", "expert parallelism"),
    ("上下文并行", "context parallelism"),
    ("显存带宽", "memory bandwidth"),
    ("显存碎片", "memory fragmentation"),
    ("显存占用", "memory footprint"),
    ("算子融合", "operator fusion"),
    ("梯度累积", "gradient accumulation"),
    ("梯度同步", "gradient synchronization"),
    ("重计算", "recomputation"),
    ("混合精度训练", "mixed-precision training"),
    ("量化", "quantization"),
    ("投机解码", "speculative decoding"),
    ("负载均衡", "load balancing"),
    ("通信开销", "communication overhead"),
    ("计算密集型", "compute-bound"),
    ("访存密集型", "memory-bound"),
    ("共享内存", "shared memory"),
    ("全局内存", "global memory"),
    ("优化器状态", "optimizer state"),
    ("激活显存", "activation memory"),
    ("吞吐量", "throughput"),
    ("首字延迟", "time to first token"),
    ("调度策略", "scheduling policy"),
    ("预训练", "pretraining"),
    ("后训练", "post-training"),
    ("推理服务", "inference serving"),
    ("稀疏注意力", "sparse attention"),
    ("专家路由", "expert routing"),
    ("集合通信", "collective communication"),
    ("拓扑感知", "topology awareness"),
    ("故障恢复", "failure recovery"),
    ("检查点", "checkpoint"),
    ("模型并行", "model parallelism"),
    ("算力利用率", "compute utilization"),
    ("内存墙", "memory wall"),
    ("连续批处理", "continuous batching"),
    ("前缀缓存", "prefix caching"),
    ("权重加载", "weight loading"),
    ("分布式训练", "distributed training"),
    ("训练稳定性", "training stability"),
    ("长上下文", "long context"),
    ("注意力机制", "attention mechanism"),
    ("通信原语", "communication primitives"),
    ("带宽利用率", "bandwidth utilization"),
    ("解码阶段", "decode stage"),
    ("预填充阶段", "prefill stage"),
    ("低精度", "low precision"),
    ("算子库", "kernel library"),
    ("流水线气泡", "pipeline bubble"),
    ("训练", "training"),
    ("推理", "inference"),
    ("通信", "communication"),
    ("并行", "parallelism"),
    ("延迟", "latency"),
    ("AllReduce", "AllReduce"),
    ("All-Gather", "All-Gather"),
    ("Reduce-Scatter", "Reduce-Scatter"),
    ("AllToAll", "AllToAll"),
    ("NCCL", "NCCL"),
    ("NVSHMEM", "NVSHMEM"),
    ("NVLink", "NVLink"),
    ("RDMA", "RDMA"),
    ("InfiniBand", "InfiniBand"),
    ("KV Cache", "KV cache"),
    ("Prefill", "prefill"),
    ("Decode", "decode"),
    ("Flash Attention", "Flash Attention"),
    ("PagedAttention", "PagedAttention"),
    ("Tensor Core", "Tensor Core"),
    ("TMA", "TMA"),
    ("Warp", "warp"),
    ("SM", "SM"),
    ("CUDA Graph", "CUDA Graph"),
    ("Triton", "Triton"),
    ("cuBLAS", "cuBLAS"),
    ("CUTLASS", "CUTLASS"),
    ("FP8", "FP8"),
    ("BF16", "BF16"),
    ("INT4", "INT4"),
    ("MoE", "MoE"),
    ("MLA", "MLA"),
    ("GQA", "GQA"),
    ("RoPE", "RoPE"),
    ("LoRA", "LoRA"),
    ("ZeRO", "ZeRO"),
    ("FSDP", "FSDP"),
    ("Megatron-LM", "Megatron-LM"),
    ("DeepSpeed", "DeepSpeed"),
    ("vLLM", "vLLM"),
    ("SGLang", "SGLang"),
    ("TensorRT-LLM", "TensorRT-LLM"),
    ("DualPipe", "DualPipe"),
    ("1F1B", "1F1B"),
    ("Ring Attention", "Ring Attention"),
    ("Ulysses", "Ulysses"),
    ("Hopper", "Hopper"),
    ("Blackwell", "Blackwell"),
    ("H100", "H100"),
    ("GB200", "GB200"),
    ("PCIe", "PCIe"),
    ("GPUDirect RDMA", "GPUDirect RDMA"),
    ("DeepEP", "DeepEP"),
    ("MFU", "MFU"),
    ("Muon", "Muon"),
    ("AdamW", "AdamW"),
    ("Speculative Decoding", "speculative decoding"),
    ("PD分离", "PD disaggregation"),
    ("Bank Conflict", "bank conflict"),
    ("Occupancy", "occupancy"),
    ("Warp Specialization", "warp specialization"),
)

# Common technical English, added to the words of the seed's English bank.
ENGLISH_WORDS = """
system systems memory compute kernel kernels thread threads block blocks layer layers weight weights
gradient gradients batch batches sequence sequences token tokens request requests cluster node nodes
device devices buffer buffers cache caches queue queues stream streams graph graphs tensor tensors
operator operators shape shapes dimension dimensions partition partitions shard shards replica replicas
bandwidth latency throughput overhead bottleneck pressure capacity budget limit limits cost costs
schedule scheduler scheduling policy policies strategy strategies design tradeoff tradeoffs scenario
scenarios workload workloads phase stage stages step steps iteration iterations epoch checkpoint
failure failures recovery restart fault tolerance accuracy precision range scale scaling factor factors
allocation allocator fragmentation pool pools page pages block table index indices offset offsets
reduce reduces reduced reducing increase increases increased improve improves improved improving
overlap overlaps overlapped split splits splitting merge merges merged fuse fuses fused fusion
launch launches launched load loads loaded loading store stores stored write writes read reads
transfer transfers transferred copy copies copied send sends receive receives route routes routed
balance balanced imbalance skew skewed uneven even dynamic static adaptive fixed flexible efficient
expensive cheap fast slow large small long short high low wide narrow deep shallow dense sparse
parallel serial concurrent asynchronous synchronous blocking independent dependent local remote global
hardware software framework runtime compiler library driver interface protocol network topology link
links switch switches fabric host hosts server servers rack racks process processes rank ranks group
groups communicator message messages packet packets volume size sizes count counts rate rates ratio
model models parameter parameters expert experts router routing attention head heads query queries key
keys value values projection embedding embeddings activation activations residual normalization loss
optimizer optimizers momentum learning rate warmup decay update updates state states statistics
pretraining finetuning training inference serving deployment evaluation benchmark profiling profile
trace traces metric metrics utilization efficiency performance behavior approach method methods
technique techniques mechanism mechanisms algorithm algorithms implementation implementations detail
details example examples case cases condition conditions constraint constraints requirement
requirements assumption assumptions problem problems issue issues solution solutions result results
typically usually often rarely always never mostly mainly largely partly roughly nearly directly
instead therefore however moreover meanwhile otherwise because although while since unless until
""".split()

STOP_EN = frozenset(
    "the and for with from that this are was were been has have had its into than then also can not but "
    "each which what when where why how does more most less such use used using only other both same one "
    "two per via may should would will about between while there their them they these those you your "
    "a an of in on at to by as is be or it so if no".split()
)

# Question templates: (Chinese, English). {A} and {B} are terms, {w} a Chinese word, {e} an English one.
TEMPLATES: tuple[tuple[str, str], ...] = (
    ("{A}和{B}的区别是什么？", "What is the difference between {A} and {B} in {e} {e}?"),
    ("如何用{A}优化{w}{w}？", "How do you use {A} to optimize {e} {e}?"),
    ("{A}在{w}{w}场景下为什么会成为瓶颈？", "Why does {A} become the bottleneck in {e} {e} scenarios?"),
    ("什么是{A}？它与{w}{w}有什么关系？", "What is {A}, and how does it relate to {e} {e}?"),
    ("{w}{A}时需要注意哪些{w}问题？", "What {e} issues should you watch for when {e} {A}?"),
    ("请解释{A}中的{w}{w}机制。", "Explain the {e} {e} mechanism in {A}."),
    ("{A}的{w}开销在哪里，怎么{w}？", "Where does the {e} overhead of {A} come from, and how do you {e} it?"),
    ("为什么{A}比{B}更适合{w}{w}？", "Why is {A} better suited than {B} for {e} {e}?"),
    ("{A}和{B}一起使用时，{w}{w}如何权衡？", "When {A} and {B} are combined, how do you trade off {e} {e}?"),
    ("在{w}{w}中，{A}有哪些常见的优化？", "What are the common {A} optimizations for {e} {e}?"),
)

# Answer shapes, as in the seed bank: P paragraph, L lead-in, a digit = a bullet list of that many items,
# N = a numbered list (3 to 5 items).
SHAPES = ("PP", "L4L5", "PL4", "6", "4", "L3", "PP", "L3L3", "6", "3P", "PP", "4P", "6", "5", "LN", "PN")


@lru_cache(maxsize=1)
def chinese_vocabulary() -> tuple[tuple[str, int], ...]:
    """jieba's frequent words, (word, frequency), most frequent first.

    Words of 2 to 4 characters, plus the commonest single characters (的, 是, 在 ...); rarer single
    characters in the dictionary are mostly variants that no answer would use.
    """
    import jieba

    text = (Path(jieba.__file__).parent / "dict.txt").read_text(encoding="utf-8")
    found = sorted(((int(f), w) for w, f in _DICT_LINE.findall(text)), key=lambda fw: (-fw[0], fw[1]))
    singles = [fw for fw in found if len(fw[1]) == 1][:SINGLE_CHARS]
    words = [fw for fw in found if len(fw[1]) > 1][:ZH_VOCAB]
    return tuple((w, f) for f, w in sorted(singles + words, key=lambda fw: (-fw[0], fw[1])))


@lru_cache(maxsize=1)
def english_vocabulary() -> tuple[str, ...]:
    """Distinct English words, most frequent first: the seed's English banks plus the built-in list."""
    counts: Counter[str] = Counter()
    for path in sorted(SEED_BANKS.glob("*.en.txt")):
        for word in re.findall(r"[A-Za-z][a-z]{2,}", path.read_text(encoding="utf-8")):
            if word.lower() not in STOP_EN:
                counts[word.lower()] += 1
    counts.update(ENGLISH_WORDS)
    return tuple(sorted(counts, key=lambda w: (-counts[w], w)))


@lru_cache(maxsize=1)
def lexicon() -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """Bilingual tokens (Chinese, English) as urns to draw from uniformly: (all tokens, plain words).

    Each Chinese word is paired with an English word of similar rank, so a sentence and its
    "translation" are drawn together and the English text follows a Zipf-like law too. A token
    appears in the urn in proportion to its weight (uniform draws from an urn are several times
    faster than weighted ones). Technical terms make up TERM_SHARE of the tokens, sometimes written
    张量并行（tensor parallelism）.
    """
    zh = chinese_vocabulary()
    en = english_vocabulary()
    fillers = [(w, en[rank % len(en)]) for rank, (w, _) in enumerate(zh)]
    # Damped frequencies: 的/是/在 stay common without drowning the content words; the rarest word once.
    unit = math.sqrt(zh[-1][1])
    copies = [round(math.sqrt(f) / unit) for _, f in zh]
    filler_urn = [pair for pair, k in zip(fillers, copies, strict=True) for _ in range(k)]
    per_term = round(len(filler_urn) * TERM_SHARE / (1 - TERM_SHARE) / len(TERMS))
    term_urn: list[tuple[str, str]] = []
    for tz, te in TERMS:
        glossed = 0 if tz.isascii() else per_term * 15 // 100
        term_urn += [(tz, te)] * (per_term - glossed) + [(f"{tz}（{te}）", te)] * glossed
    return tuple(filler_urn + term_urn), tuple(filler_urn)


def _sentence(rng: random.Random, low: int, high: int, end_zh: str = "。", end_en: str = ".") -> tuple[str, str]:
    """One sentence in both languages: words and technical terms in the same order."""
    n = rng.randint(low, high)
    tokens = rng.choices(lexicon()[0], k=n)
    if n >= 8 and rng.random() < 0.5:
        tokens.insert(rng.randint(3, n - 3), _COMMA)
    zh = _ASCII_GAP.sub(" ", "\x00".join(t[0] for t in tokens)).replace("\x00", "")
    en = " ".join(t[1] for t in tokens).replace(" ,", ",")
    return zh + end_zh, _capital(en) + end_en


def _question(rng: random.Random) -> tuple[str, str]:
    zh_t, en_t = TEMPLATES[int(rng.random() * len(TEMPLATES))]
    a = TERMS[int(rng.random() * len(TERMS))]
    b = TERMS[int(rng.random() * len(TERMS))]
    while b == a:
        b = TERMS[int(rng.random() * len(TERMS))]
    words = rng.choices(lexicon()[1], k=4)
    zh_words = iter(w[0] for w in words)
    en_words = iter(w[1] for w in words)
    zh = _fill(zh_t, a[0], b[0], lambda: next(zh_words))
    en = _fill(en_t, a[1], b[1], lambda: next(en_words))
    return zh, _capital(en)


def _capital(text: str) -> str:
    """Capitalise a sentence unless it starts with a name that has its own case (cuBLAS, vLLM)."""
    first = text.split(" ", 1)[0]
    return text[0].upper() + text[1:] if first.islower() else text


def _fill(template: str, a: str, b: str, word: Callable[[], str]) -> str:
    return re.sub(r"\{([ABwe])\}", lambda m: a if m[1] == "A" else b if m[1] == "B" else word(), template)


def _answer(rng: random.Random) -> tuple[list[str], list[str]]:
    """Answer lines in both languages, with the same block shape."""
    shape = SHAPES[int(rng.random() * len(SHAPES))]
    zh: list[str] = []
    en: list[str] = []
    for kind in shape:
        if kind == "P":
            parts = [_sentence(rng, 10, 22) for _ in range(rng.randint(1, 3))]
            zh.append("".join(p[0] for p in parts))
            en.append(" ".join(p[1] for p in parts))
        elif kind == "L":
            z, e = _sentence(rng, 3, 7, "：", ":")
            zh.append(z)
            en.append(e)
        else:
            count = rng.randint(3, 5) if kind == "N" else int(kind)
            for i in range(count):
                z, e = _sentence(rng, 8, 18)
                if rng.random() < 0.4:  # "- TP通信与计算重叠：..." as in the seed
                    tz, te = TERMS[int(rng.random() * len(TERMS))]
                    z, e = f"{tz}：{z}", f"{_capital(te)}: {e}"
                marker = f"{i + 1}. " if kind == "N" else "- "
                zh.append(marker + z)
                en.append(marker + e)
    return zh, en


def bank_texts(number: int, count: int, rng: random.Random, seen: set[str]) -> tuple[str, str]:
    """One bank of `count` questions: (Chinese text, English text). `seen` keeps questions unique."""
    a, b = TERMS[int(rng.random() * len(TERMS))], TERMS[int(rng.random() * len(TERMS))]
    zh = [f"AI Infra 合成题库 {number:03d}：{a[0]}与{b[0]}"]
    en = [f"AI Infra Synthetic Bank {number:03d}: {a[1]} and {b[1]}"]
    for _ in range(count):
        while True:
            qz, qe = _question(rng)
            kz, ke = _key(qz), _key(qe)
            if kz not in seen and ke not in seen:
                seen.update((kz, ke))
                break
        az, ae = _answer(rng)
        zh += [f"Q: {qz}", *az]
        en += [f"Q: {qe}", *ae]
    return "\n".join(zh) + "\n", "\n".join(en) + "\n"


def write_corpus(dest: Path, questions: int, per_bank: int = 50, seed: int = 0) -> None:
    """Write `questions` questions in banks of `per_bank` (the last one takes the rest) into `dest`.

    Earlier syn-*.txt files and a slugs.lock in `dest` are removed: a lock left from another corpus
    would turn all its pages into 'removed' pages.
    """
    if questions < 1 or per_bank < 1:
        raise ValueError("questions and per_bank must be positive")
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("syn-*.txt"):
        old.unlink()
    (dest / "slugs.lock").unlink(missing_ok=True)
    shutil.copyfile(TAXONOMY, dest / "taxonomy.yml")
    rng = random.Random(seed)
    seen: set[str] = set()
    banks = max(1, math.ceil(questions / per_bank))
    for n in range(banks):
        count = min(per_bank, questions - n * per_bank)
        zh, en = bank_texts(n + 1, count, rng, seen)
        (dest / f"syn-{n + 1:03d}.txt").write_text(zh, encoding="utf-8")
        (dest / f"syn-{n + 1:03d}.en.txt").write_text(en, encoding="utf-8")


def _key(text: str) -> str:
    """The build's duplicate key (studysite.sources.parse._normal)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\s?？。.!！]+", "", folded)


_DICT_LINE = re.compile(r"^([\u4e00-\u9fff]{1,4}) (\d{3,}) ", re.MULTILINE)
"""A dictionary line of 1 to 4 Chinese characters with a frequency of at least 100."""
_ASCII_GAP = re.compile(r"(?<=[A-Za-z0-9])\x00(?=[A-Za-z0-9])")
_COMMA = ("，", ",")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="synthetic_banks.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="banks folder to write (created if missing)")
    parser.add_argument("--questions", type=int, required=True, help="number of questions")
    parser.add_argument("--per-bank", type=int, default=50, help="questions per bank (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    write_corpus(args.dest, args.questions, args.per_bank, args.seed)
    banks = max(1, math.ceil(args.questions / args.per_bank))
    print(f"synthetic_banks: {args.questions} questions in {banks} bank(s) -> {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
