# OK: the advantage helper runs the critic but hands back new tensors built from Python numbers, so the actor's and the critic's losses share no graph through what it returns, and the step() between their backward() calls changes nothing either saved.
import torch
import torch.nn as nn

GAMMA = 0.9


def calc_adv_ref(rewards, net_crt, states_v):
    values = net_crt(states_v).squeeze(-1).data.tolist()
    adv, ref, running = [], [], 0.0
    for reward, value in zip(reversed(rewards), reversed(values)):
        running = reward + GAMMA * running
        adv.append(running - value)
        ref.append(running)
    return torch.FloatTensor(list(reversed(adv))), torch.FloatTensor(list(reversed(ref)))


torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
critic = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt_act = torch.optim.Adam(actor.parameters(), lr=1e-3)
opt_crt = torch.optim.Adam(critic.parameters(), lr=1e-3)
for _ in range(3):
    states = torch.randn(6, 4)
    actions = torch.randint(0, 2, (6,))
    adv_v, ref_v = calc_adv_ref([1.0] * 6, critic, states)
    opt_crt.zero_grad()
    value_loss = (critic(states).squeeze(-1) - ref_v).pow(2).mean()
    value_loss.backward()
    opt_crt.step()
    opt_act.zero_grad()
    log_probs = torch.log_softmax(actor(states), -1).gather(1, actions[:, None]).squeeze(-1)
    policy_loss = -(log_probs * adv_v).mean()
    policy_loss.backward()
    opt_act.step()
print("done")
