# AF104: AMP gradient accumulation (scaler.step(opt) under the guard) with zero_grad(set_to_none=True) every micro-batch.
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Embedding(30, 8), nn.Flatten(), nn.Linear(8 * 5, 2))
opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cpu", enabled=False)
grad_accum = 2
samples = [(torch.randint(0, 30, (3, 5)), torch.randint(0, 2, (3,))) for _ in range(6)]

for step, (tokens, label) in enumerate(samples):
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=False):
        logits = encoder(tokens)
        loss = nn.functional.cross_entropy(logits, label) / grad_accum
    scaler.scale(loss).backward()
    if step % grad_accum == grad_accum - 1:
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(encoder.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        print(step, loss.item())
