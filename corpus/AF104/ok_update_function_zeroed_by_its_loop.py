# ok: the update function leaves zeroing to its caller, and the loop that calls it (af104_helpers/zeroing_episodes.py) zeroes the optimizer before every update.
import torch


def value_regression_update(optim, predictions, targets):
    loss = torch.nn.functional.mse_loss(torch.stack(predictions), targets)
    loss.backward()
    optim.step()
    return loss.item()


if __name__ == "__main__":
    from af104_helpers.zeroing_episodes import run_episodes

    run_episodes(3)
