# AF101: three losses from one shared `emb` tensor; two crash-prone backward calls plus logging of each loss.
import torch
import torch.nn as nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(8, 32), nn.GELU())
heads = nn.ModuleDict({"age": nn.Linear(32, 1), "gender": nn.Linear(32, 2), "mood": nn.Linear(32, 3)})
opt = torch.optim.SGD(list(trunk.parameters()) + list(heads.parameters()), lr=0.01)
bce = nn.CrossEntropyLoss()
history = []

step = 0
while step < 3:
    faces = torch.randn(6, 8)
    age = torch.rand(6, 1) * 80
    gender = torch.randint(0, 2, (6,))
    mood = torch.randint(0, 3, (6,))

    opt.zero_grad()
    emb = trunk(faces)
    age_loss = nn.functional.l1_loss(heads["age"](emb), age)
    gender_loss = bce(heads["gender"](emb), gender)
    mood_loss = bce(heads["mood"](emb), mood)
    (age_loss + gender_loss + mood_loss).backward()
    opt.step()
    history.append((age_loss.item(), gender_loss.item(), mood_loss.item()))
    step += 1
print(history)
