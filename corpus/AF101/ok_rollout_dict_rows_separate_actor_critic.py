# OK: each rollout row is a dict whose log-probability comes from the actor and whose value comes
# from a separate critic, on observations with no graph. The batch dict gathers each entry over the
# rows, so the policy loss reads only the actor's graphs and the value loss only the critic's:
# the policy backward frees nothing the value backward needs.
import torch
import torch.nn as nn

torch.manual_seed(0)
actor = nn.Linear(3, 2)
critic = nn.Linear(3, 1)
actor_optimizer = torch.optim.SGD(actor.parameters(), lr=0.05)
critic_optimizer = torch.optim.SGD(critic.parameters(), lr=0.05)

rows = []
for t in range(1, 13):
    obs = torch.randn(1, 3)
    dist = torch.distributions.Categorical(logits=actor(obs))
    action = dist.sample()
    rows.append({"obs": obs, "logp": dist.log_prob(action), "value": critic(obs).squeeze(1), "ret": torch.randn(1)})
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
