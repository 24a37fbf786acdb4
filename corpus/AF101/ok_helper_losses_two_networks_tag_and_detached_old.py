# ok: the helper returns a policy loss and a value loss from two separate networks; the run tag (a formatted string) and the old log-probabilities (read only detached) reach neither loss's graph, so the two backward calls share nothing.
import time
import torch
import torch.nn as nn
import torch.nn.functional as F


def log_probs(obs, policy):
    return torch.log_softmax(policy(obs), dim=-1)


def ppo_losses(obs, policy, value_net, old_logp, advantage, clip, tag):
    returns = obs.sum(dim=-1, keepdim=True)
    value_loss = F.mse_loss(value_net(obs), returns)
    ratio = torch.exp(log_probs(obs, policy) - old_logp.detach())
    clipped = torch.clamp(ratio, 1 - clip, 1 + clip)
    policy_loss = -torch.min(ratio * advantage, clipped * advantage).mean()
    return policy_loss, value_loss


torch.manual_seed(0)
run_tag = "ppo_{}_{}".format(time.localtime().tm_hour, time.localtime().tm_min)
policy = nn.Linear(4, 2)
value_net = nn.Linear(4, 1)
policy_opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
value_opt = torch.optim.Adam(value_net.parameters(), lr=1e-3)

for update in range(2):
    obs = torch.randn(8, 4)
    old_logp = log_probs(obs, policy)
    advantage = torch.randn(8, 1)
    for start in range(0, 8, 4):
        part = obs[start:start + 4]
        policy_loss, value_loss = ppo_losses(part, policy, value_net, old_logp[start:start + 4], advantage[start:start + 4], 0.2, run_tag)
        policy_opt.zero_grad()
        policy_loss.backward()
        policy_opt.step()
        value_opt.zero_grad()
        value_loss.backward()
        value_opt.step()
        print(run_tag, update, policy_loss.item(), value_loss.item())
