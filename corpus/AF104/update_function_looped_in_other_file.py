# AF104: this update function back-propagates and steps the optimizer it is handed but never zeroes it, and the episode loop that calls it (af104_helpers/episodes.py) zeroes nothing either: every update applies the gradients of all episodes so far.
# autofix-test: unsafe-fixes
import torch


def policy_gradient_update(optim, log_probs, advantages):
    objective = -(torch.stack(log_probs) * advantages).mean()
    objective.backward()
    optim.step()
    return objective.item()


if __name__ == "__main__":
    from af104_helpers.episodes import run_episodes

    run_episodes(3)
