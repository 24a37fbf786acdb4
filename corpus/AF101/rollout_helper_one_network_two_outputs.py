# AF101: the rollout helper takes both the log-probabilities and the state values from one network call per step, so the policy and value losses share that call's graph; the first backward() frees it.
import torch
import torch.nn as nn


def rollout(net, steps):
    log_probs = torch.empty(0)
    values = torch.empty(0)
    for _ in range(steps):
        out = net(torch.randn(1, 3)).squeeze(0)
        logits, value = out[:2], out[2:]
        action = torch.distributions.Categorical(logits=logits).sample()
        log_probs = torch.cat((log_probs, torch.log_softmax(logits, 0)[action].unsqueeze(0)))
        values = torch.cat((values, value))
    return values, log_probs, torch.randn(steps)


def main():
    torch.manual_seed(0)
    net = nn.Linear(3, 3)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(2):
        values, log_probs, returns = rollout(net, 4)
        policy_loss = -(log_probs * (returns - values.detach())).mean()
        value_loss = (values - returns).pow(2).mean()
        opt.zero_grad()
        policy_loss.backward()
        value_loss.backward()
        opt.step()
    print("ok")


if __name__ == "__main__":
    main()
