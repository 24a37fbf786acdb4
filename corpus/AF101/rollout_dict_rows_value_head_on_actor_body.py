# Reported: the value head reads the actor body's features, so the batch's value entry and its
# log-probability entry come through one graph. The policy backward frees the actor body's part
# of it, and the value backward goes through that part again.
import torch
import torch.nn as nn

torch.manual_seed(0)
body = nn.Linear(3, 4)
policy_head = nn.Linear(4, 2)
value_head = nn.Linear(4, 1)
actor_optimizer = torch.optim.SGD(list(body.parameters()) + list(policy_head.parameters()), lr=0.05)
critic_optimizer = torch.optim.SGD(value_head.parameters(), lr=0.05)

rows = []
for t in range(1, 13):
    obs = torch.randn(1, 3)
    features = torch.tanh(body(obs))
    dist = torch.distributions.Categorical(logits=policy_head(features))
    action = dist.sample()
    rows.append({"obs": obs, "logp": dist.log_prob(action), "value": value_head(features).squeeze(1), "ret": torch.randn(1)})
    if t % 4 == 0:
        batch = {name: torch.cat([row[name] for row in rows], dim=0) for name in rows[0].keys()}
        rows = []
        policy_loss = -(batch["logp"] * batch["ret"]).mean()
        actor_optimizer.zero_grad()
        policy_loss.backward()
        actor_optimizer.step()
        value_loss = (batch["value"] - batch["ret"]).pow(2).mean()
        critic_optimizer.zero_grad()
        value_loss.backward()
        critic_optimizer.step()
        print(t, policy_loss.item(), value_loss.item())
