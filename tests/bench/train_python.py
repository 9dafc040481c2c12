#!/usr/bin/python3
"""Training steps per second of the PyTorch reference model, eager, for `npm run bench`.

The model, loss and batches are those of tests/fixtures/make_train_fixtures.py (the fixtures'
reference): float64, CPU, torch.set_num_threads(1), torch.optim.Adam. A step draws its batch
with np.random.randint and computes the targets in NumPy, as the C++ trainer's step does.

    /usr/bin/python3 tests/bench/train_python.py <task> <heads,...> <steps per sample> <samples>

<task>: a preset's name, or relations=<name>,<name>,... (a task built from those relations).

Prints one JSON line per model: {"numHeads": h, "msPerStep": [...]} (CPU time of the process).
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import make_train_fixtures as ref  # noqa: E402

torch.set_num_threads(1)


def main():
    task, heads, steps, samples = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if task.startswith("relations="):
        task = task[len("relations="):].split(",")
    # The trainer's defaults (cpp/headwise/train_tasks.hpp), passed by tests/bench/train.mjs.
    d, n, V, B, lr = (int(os.environ["HW_D"]), int(os.environ["HW_N"]), int(os.environ["HW_V"]),
                      int(os.environ["HW_B"]), float(os.environ["HW_LR"]))
    R = len(ref.rules_of(task))
    for h in [int(x) for x in heads.split(",")]:
        params, _ = ref.init_draws(0, V, n, d, R, 1, task=task)
        model = ref.TinyAttentionModel(params, h)
        opt = torch.optim.Adam(model.parameters(), lr=lr)

        def step():
            tokens = np.random.randint(V, size=(B, n))
            targets = ref.targets_for(task, tokens)
            opt.zero_grad()
            logits, _ = model(torch.tensor(tokens))
            loss, _ = ref.loss_and_accuracy(logits, targets, V)
            loss.backward()
            opt.step()

        for _ in range(20):
            step()
        ms = []
        for _ in range(samples):
            t0 = time.process_time()
            for _ in range(steps):
                step()
            ms.append((time.process_time() - t0) * 1000 / steps)
        print(json.dumps({"numHeads": h, "msPerStep": ms}), flush=True)


if __name__ == "__main__":
    main()
