# OK: a toy environment hands back a fresh observation tensor, so the next observation carries no
# graph of the action. Returns and advantages are written into each row by a loop over the rows
# under no_grad, then the batch gathers every entry over the rows. The policy loss reads the
# actor's log-probabilities, the value loss the separate critic's values: no graph is shared.
import torch
import torch.nn as nn

torch.manual_seed(0)


class ToyEnv:
    def __init__(self):
        self.t = 0

    def reset(self):
        self.t = 0
        return torch.randn(1, 3)

    def step(self, action):
        self.t += 1
        obs = torch.randn(3).tolist()
        return torch.tensor(obs).unsqueeze(0), float(action.sum().item()), self.t >= 4


actor = nn.Linear(3, 2)
critic = nn.Linear(3, 1)
actor_optimizer = torch.optim.SGD(actor.parameters(), lr=0.05)
critic_optimizer = torch.optim.SGD(critic.parameters(), lr=0.05)
env = ToyEnv()
obs, rows = env.reset(), []
for t in range(1, 13):
    dist = torch.distributions.Categorical(logits=actor(obs))
    action = dist.sample()
    next_obs, reward, done = env.step(action)
    rows.append({"obs": obs, "reward": torch.tensor([reward]), "logp": dist.log_prob(action), "value": critic(obs).squeeze(1)})
    obs = next_obs
    if done:
        obs = env.reset()
        with torch.no_grad():
            ret = torch.zeros(1)
            for row in reversed(rows):
                ret = row["reward"] + 0.9 * ret
                row["ret"] = ret
                row["adv"] = ret - row["value"]
        batch = {name: torch.cat([row[name] for row in rows], dim=0) for name in rows[0].keys()}
        rows = []
        policy_loss = -(batch["logp"] * batch["adv"]).mean()
        actor_optimizer.zero_grad()
        policy_loss.backward()
        actor_optimizer.step()
        value_loss = (batch["value"] - batch["ret"]).pow(2).mean()
        critic_optimizer.zero_grad()
        value_loss.backward()
        critic_optimizer.step()
        print(t, policy_loss.item(), value_loss.item())
