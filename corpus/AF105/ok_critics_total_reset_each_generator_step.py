# Each generator step first updates two critics one after the other, each back-propagating its own
# loss before it is added to a total that the step starts again from zero; then the generator is
# updated. The total only ever holds the current step's critic losses, whose saved tensors their
# own backward() already released, so nothing piles up from one step to the next.
import torch
import torch.nn as nn

torch.manual_seed(0)
gen = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 5))
critics = [nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1)) for _ in range(2)]
critic_opts = [torch.optim.SGD(c.parameters(), lr=0.05) for c in critics]
gen_opt = torch.optim.SGD(gen.parameters(), lr=0.05)

for step in range(4):
    real = torch.randn(16, 5)
    fake = gen(torch.randn(16, 3))
    critic_total = 0
    for k in range(len(critics)):
        critic_opts[k].zero_grad()
        critic_loss = critics[k](fake.detach()).mean() - critics[k](real).mean()
        critic_loss.backward()
        critic_opts[k].step()
        critic_total += critic_loss
    gen_opt.zero_grad()
    gen_loss = -sum(c(fake).mean() for c in critics)
    gen_loss.backward()
    gen_opt.step()
    print(step, round(critic_total.item(), 4), round(gen_loss.item(), 4))
