#!/usr/bin/python3
"""The multi-head attention forward in NumPy (the lesson's own pipeline) or in PyTorch
(nn.MultiheadAttention), float64, one thread, timed like tests/bench/bench_native.cpp.

Run with Debian's interpreter (python3-numpy on OpenBLAS, python3-torch):

    /usr/bin/python3 tests/bench/bench_python.py numpy|torch            # a quick table
    /usr/bin/python3 tests/bench/bench_python.py numpy|torch --serve    # for run.mjs

The line protocol (stdin -> stdout, one JSON object per line) is the native one:
    info                      -> {"impl": ..., "versions": ..., "blas": ...}
    time <n> <d> <h> <samples> <batch>
                              -> {"times_ms": [...], "check": {...}}: per sample, the mean
                                 time of one forward over a batch of forwards
    quit

Inputs are the lesson's draws: np.random.seed(7); X = randn(n, d); Wq, Wk, Wv, Wo = randn(d, d).
Set OPENBLAS_NUM_THREADS=1 in the environment (run.mjs does); PyTorch also gets
torch.set_num_threads(1).
"""

import ctypes
import json
import os
import sys
import time

import numpy as np

IMPL = sys.argv[1] if len(sys.argv) > 1 else "numpy"
if IMPL not in ("numpy", "torch"):
    sys.exit("usage: bench_python.py numpy|torch [--serve]")

if IMPL == "torch":
    import torch

    torch.set_num_threads(1)
    torch.set_default_dtype(torch.float64)


# ---------------------------------------------------------------------------------------------
# The lesson's pipeline, as the lesson writes it (lesson/module-08-multi-head-attention.md).


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


def split_heads(M, num_heads, d_head):
    return M.reshape(M.shape[0], num_heads, d_head).transpose(1, 0, 2)


def numpy_forward(X, Wq, Wk, Wv, Wo, num_heads):
    # X: (n, d_model) -> output (n, d_model), per-head weights num_heads x (n, n)
    d_head = X.shape[1] // num_heads
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    Qh, Kh, Vh = (split_heads(m, num_heads, d_head) for m in (Q, K, V))
    outs, weights = zip(*(attention(Qh[h], Kh[h], Vh[h]) for h in range(num_heads)))
    return np.concatenate(outs, axis=-1) @ Wo, weights


# ---------------------------------------------------------------------------------------------

_inputs = {}


def inputs(n, d):
    if (n, d) not in _inputs:
        np.random.seed(7)
        X = np.random.randn(n, d)
        Wq, Wk, Wv, Wo = [np.random.randn(d, d) for _ in range(4)]
        _inputs[(n, d)] = (X, Wq, Wk, Wv, Wo)
    return _inputs[(n, d)]


_modules = {}


def torch_module(n, d, h):
    """nn.MultiheadAttention holding the lesson's weights (x @ W is nn.Linear with W^T)."""
    if (n, d, h) not in _modules:
        X, Wq, Wk, Wv, Wo = inputs(n, d)
        mha = torch.nn.MultiheadAttention(d, h, bias=False, dtype=torch.float64)
        mha.eval()
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.from_numpy(np.concatenate([Wq.T, Wk.T, Wv.T])))
            mha.out_proj.weight.copy_(torch.from_numpy(Wo.T))
        _modules[(n, d, h)] = (mha, torch.from_numpy(X))
    return _modules[(n, d, h)]


def make_runner(n, d, h):
    """A no-argument function running one forward; returns (output, per-head weights)."""
    if IMPL == "numpy":
        X, Wq, Wk, Wv, Wo = inputs(n, d)
        return lambda: numpy_forward(X, Wq, Wk, Wv, Wo, h)
    mha, x = torch_module(n, d, h)

    def run():
        with torch.no_grad():
            out, weights = mha(x, x, x, need_weights=True, average_attn_weights=False)
        return out, weights

    return run


def check(out, weights):
    out = np.asarray(out)
    w0 = np.asarray(weights[0])
    wl = np.asarray(weights[-1])
    return {
        "output00": float(out[0, 0]),
        "outputSum": float(out.sum()),
        "weights000": float(w0[0, 0]),
        "weightsLastSum": float(wl[-1].sum()),
    }


def time_forward(n, d, h, samples, batch=1):
    run = make_runner(n, d, h)
    times = []
    result = None
    for _ in range(samples):
        t0 = time.perf_counter()
        for _ in range(batch):
            result = run()
        times.append((time.perf_counter() - t0) * 1e3 / batch)
    return {"times_ms": times, "check": check(*result)}


# ---------------------------------------------------------------------------------------------


def openblas_info():
    """The OpenBLAS library actually loaded, its core (kernel set) and thread count."""
    info = {}
    libs = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "blas" in os.path.basename(path) or "lapack" in os.path.basename(path):
                libs.add(path)
    info["libraries"] = sorted(libs)
    for path in sorted(libs):
        if "openblas" not in os.path.basename(path):
            continue
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            lib.openblas_get_config.restype = ctypes.c_char_p
            info["corename"] = lib.openblas_get_corename().decode()
            info["config"] = lib.openblas_get_config().decode()
            info["threads"] = lib.openblas_get_num_threads()
        except (OSError, AttributeError):
            pass
    try:
        import threadpoolctl

        info["threadpoolctl"] = [
            {k: p.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
            for p in threadpoolctl.threadpool_info()
        ]
    except ImportError:
        info["threadpoolctl"] = None
    info["env"] = {k: os.environ.get(k) for k in
                   ("OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    return info


def describe():
    out = {"impl": IMPL, "python": sys.version.split()[0], "numpy": np.__version__}
    if IMPL == "torch":
        out["torch"] = torch.__version__
        out["torch_threads"] = torch.get_num_threads()
        out["torch_blas"] = [line.strip() for line in torch.__config__.show().splitlines()
                             if "BLAS" in line or "LAPACK" in line]
    out["blas"] = openblas_info()
    return out


def serve():
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "quit":
            break
        if parts[0] == "info":
            print(json.dumps(describe()), flush=True)
        elif parts[0] == "time":
            n, d, h, samples, batch = (int(p) for p in parts[1:6])
            try:
                print(json.dumps(time_forward(n, d, h, samples, max(batch, 1))), flush=True)
            except Exception as e:  # noqa: BLE001 (reported to the orchestrator)
                print(json.dumps({"error": repr(e)}), flush=True)
        else:
            print(json.dumps({"error": "unknown command"}), flush=True)


def quick_table():
    print(json.dumps(describe(), indent=1))
    print(f"{'tokens':>8} {'d_model':>8} {'heads':>6} {'median ms':>12} {'GFLOP/s':>10}")
    for n, d, h in [(5, 8, 2), (64, 256, 4), (128, 512, 8), (128, 768, 12), (512, 768, 12)]:
        time_forward(n, d, h, 3)
        reps = 500 if n * d < 4096 else 21
        ms = float(np.median(time_forward(n, d, h, reps)["times_ms"]))
        flops = 8.0 * n * d * d + 4.0 * n * n * d
        print(f"{n:>8} {d:>8} {h:>6} {ms:>12.4f} {flops / (ms * 1e6):>10.2f}")


if __name__ == "__main__":
    if "--serve" in sys.argv:
        serve()
    else:
        quick_table()
