"""With the MicroCoder pieces off (rho 0, fixed temperature, truncated completions judged as TRL
does), MicroCoderGRPOTrainer's loss and gradients equal TRL's GRPOTrainer on the same batch."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from datasets import Dataset  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from microcoder_train.config import MicroCoderGRPOConfig  # noqa: E402
from microcoder_train.tiny import build_model, build_tokenizer  # noqa: E402
from microcoder_train.trainer import MicroCoderGRPOTrainer  # noqa: E402

G, L_MAX = 4, 12


def _reward(completions, **kw):
    return [float(len(c[-1]["content"]) % 5) for c in completions]


class _Fixed:
    """Both trainers sample the same completions (some truncated, some finished) for every prompt."""

    fixed: list[list[int]] = []

    def _generate_single_turn(self, prompt_ids, images, multimodal_fields, num_generations, **kw):
        return [list(self.fixed[i % len(self.fixed)]) for i in range(len(prompt_ids))], None


class TRLFixed(_Fixed, GRPOTrainer):
    pass


class MicroCoderFixed(_Fixed, MicroCoderGRPOTrainer):
    pass


def _loss_and_grads(trainer):
    trainer.model.train()
    trainer.current_gradient_accumulation_steps = 1  # set by the training loop otherwise
    torch.manual_seed(0)  # _prepare_inputs shuffles the batch with the global generator
    batch = next(iter(trainer.get_train_dataloader()))
    inputs = trainer._prepare_inputs(batch)
    trainer.model.zero_grad()
    loss = trainer.compute_loss(trainer.model, inputs)
    loss.backward()
    grads = {n: p.grad.detach().clone() for n, p in trainer.model.named_parameters() if p.grad is not None}
    return loss.detach(), inputs["advantages"].detach(), grads


@pytest.mark.parametrize("beta, bf16", [(0.0, False), (0.04, False), (0.0, True)])
def test_loss_and_gradients_equal_trl_with_microcoder_pieces_off(tmp_path, beta, bf16):
    tok = build_tokenizer()
    path = tmp_path / "model"  # loaded by path, so TRL can build the reference model for beta > 0
    build_model(tok).save_pretrained(path)
    tok.save_pretrained(path)
    words = [i for i in range(10, len(tok)) if tok.decode([i]).strip()]
    _Fixed.fixed = [words[:L_MAX], words[3:6] + [tok.eos_token_id], words[5:5 + L_MAX], words[7:9] + [tok.eos_token_id]]
    ds = Dataset.from_dict({"prompt": [[{"role": "user", "content": p}] for p in ("Add two numbers.", "Sort a list.")] * 4})
    common = dict(per_device_train_batch_size=2 * G, num_generations=G, max_completion_length=L_MAX, max_steps=1,
                  report_to=[], use_cpu=True, save_strategy="no", seed=0, beta=beta, epsilon_high=0.28,
                  temperature=0.9, disable_tqdm=True, gradient_checkpointing=False, bf16=bf16)
    trl = TRLFixed(model=str(path), reward_funcs=_reward, train_dataset=ds, processing_class=tok,
                   args=GRPOConfig(output_dir=str(tmp_path / "trl"), **common))
    mc = MicroCoderFixed(model=str(path), reward_funcs=_reward, train_dataset=ds, processing_class=tok,
                         args=MicroCoderGRPOConfig(output_dir=str(tmp_path / "mc"), truncation_mask_rho=0.0,
                                                   temperature_schedule="fixed", judge_truncated_completions=True,
                                                   repetition_window=4, **common))
    loss_t, adv_t, grads_t = _loss_and_grads(trl)
    loss_m, adv_m, grads_m = _loss_and_grads(mc)
    assert adv_t.abs().sum() > 0  # the batch carries a learning signal
    torch.testing.assert_close(adv_m, adv_t, rtol=0, atol=0)
    torch.testing.assert_close(loss_m, loss_t, rtol=1e-6, atol=1e-7)
    assert grads_t.keys() == grads_m.keys() and len(grads_t) > 0
    for name in grads_t:
        torch.testing.assert_close(grads_m[name], grads_t[name], rtol=1e-5, atol=1e-7, msg=name)
    assert sum(g.abs().sum() for g in grads_t.values()) > 0

