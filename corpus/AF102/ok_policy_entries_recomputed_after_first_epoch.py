# OK: the first epoch back-propagates the log-probabilities collected with the batch; every later epoch first recomputes them from the updated policy (the `if epoch > 0:` branch), so no epoch reaches the graph the first backward() freed.
import torch
import torch.nn as nn

torch.manual_seed(0)

policy = nn.Linear(6, 3)
optimizer = torch.optim.SGD(policy.parameters(), lr=0.05)

states = torch.randn(12, 6)
actions = torch.randint(0, 3, (12,))
log_probs = torch.log_softmax(policy(states), dim=1).gather(1, actions[:, None]).squeeze(1)
batch = {
    "states": states,
    "actions": actions,
    "log_probs": log_probs,
    "old_log_probs": log_probs.detach(),
    "advantages": torch.randn(12),
}

for epoch in range(3):
    if epoch > 0:
        batch["log_probs"] = torch.log_softmax(policy(batch["states"]), dim=1).gather(1, batch["actions"][:, None]).squeeze(1)
    ratio = (batch["log_probs"] - batch["old_log_probs"]).exp()
    loss = -(ratio * batch["advantages"]).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(epoch, round(loss.item(), 4))
