"""PyTorch's CPU inference of the BERT encoder layer of examples/graphs/bert.graph, timed like
`risec graph --bench` times the compiled graph (median of ROUNDS calls after a warm-up), for
comparison only: risec never depends on PyTorch.

    python3 -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch
    /tmp/torchvenv/bin/python benches/graphs/bert_torch.py [THREADS] [ROUNDS]

The layer is the graph's: one head, sequence 64, hidden 256, feed-forward 1024, scores
without scaling, layer normalisation with eps 1e-5 and no scale or shift.
"""
import statistics
import sys
import time

import torch


def layer(x, wq, wk, wv, wo, f1, f2):
    q, k, v = x @ wq, x @ wk, x @ wv
    p = torch.softmax(q @ k.T, dim=-1)
    n = torch.nn.functional.layer_norm(p @ v @ wo + x, (x.shape[-1],), eps=1e-5)
    f = torch.relu(n @ f1) @ f2
    return torch.nn.functional.layer_norm(f + n, (x.shape[-1],), eps=1e-5)


def main():
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(0)
    u = lambda *s: torch.rand(*s, generator=g) * 2 - 1
    args = [u(64, 256), u(256, 256), u(256, 256), u(256, 256), u(256, 256), u(256, 1024), u(1024, 256)]
    with torch.inference_mode():
        for _ in range(5):
            layer(*args)
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            layer(*args)
            times.append((time.perf_counter() - t0) * 1e3)
    print(f"torch {torch.__version__}, {threads} thread(s): median {statistics.median(times):.3f} ms over {rounds} calls")


if __name__ == "__main__":
    main()
