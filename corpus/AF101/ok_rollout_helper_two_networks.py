# OK: the rollout helper gathers state values from the critic and log-probabilities from the actor on freshly sampled states; the two losses built from them have separate graphs, so two backward() calls are correct.
import torch
import torch.nn as nn


def rollout(actor, critic, steps):
    log_probs = torch.empty(0)
    values = torch.empty(0)
    for _ in range(steps):
        state = torch.randn(1, 3)
        logits = actor(state).squeeze(0)
        action = torch.distributions.Categorical(logits=logits).sample()
        log_probs = torch.cat((log_probs, torch.log_softmax(logits, 0)[action].unsqueeze(0)))
        values = torch.cat((values, critic(state).view(1)))
    return values, log_probs, torch.randn(steps)


def main():
    torch.manual_seed(0)
    actor, critic = nn.Linear(3, 2), nn.Linear(3, 1)
    actor_opt = torch.optim.SGD(actor.parameters(), lr=0.1)
    critic_opt = torch.optim.SGD(critic.parameters(), lr=0.1)
    for _ in range(2):
        values, log_probs, returns = rollout(actor, critic, 4)
        policy_loss = -(log_probs * (returns - values.detach())).mean()
        critic_loss = (values - returns).pow(2).mean()
        actor_opt.zero_grad()
        critic_opt.zero_grad()
        policy_loss.backward()
        critic_loss.backward()
        actor_opt.step()
        critic_opt.step()
    print("ok")


if __name__ == "__main__":
    main()
