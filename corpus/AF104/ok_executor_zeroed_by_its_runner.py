# ok: the executor steps the optimizer it is handed without zeroing it itself, but it calls the runner's per-batch hook first, and the runner (af104_helpers/zeroing_executor_runner.py) passes the optimizer's zero_grad as that hook.
import torch


class HookedExecutor:
    def train(self, model, optimizer, batches, criterion, before_batch):
        total = 0.0
        for features, target in batches:
            before_batch()
            loss = criterion(model(features), target)
            loss.backward()
            if torch.isfinite(loss):
                optimizer.step()
            total += loss.item()
        return total / len(batches)


if __name__ == "__main__":
    from af104_helpers.zeroing_executor_runner import run

    run(2)
