# AF105: two critics are updated one after the other inside each generator step, and their losses,
# graph and all, go into a total that starts from zero once, before the training loop. Every step
# chains its critic losses onto the same total, so the graph it holds grows with every step; it is
# only printed.
import torch
import torch.nn as nn

torch.manual_seed(0)
gen = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 5))
critics = [nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1)) for _ in range(2)]
critic_opts = [torch.optim.SGD(c.parameters(), lr=0.05) for c in critics]
gen_opt = torch.optim.SGD(gen.parameters(), lr=0.05)

critic_total = 0
for step in range(4):
    real = torch.randn(16, 5)
    fake = gen(torch.randn(16, 3))
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
    print(step, round(critic_total.item() / (step + 1), 4), round(gen_loss.item(), 4))
