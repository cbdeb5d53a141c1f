#!/usr/bin/env python3
"""Example training script for taskgov (Python standard library only).

It "trains" for --steps steps, one every --step-seconds, saving a checkpoint
every --checkpoint-every steps into $TASKGOV_CHECKPOINT_DIR and resuming from
the last one on restart. After each checkpoint it touches
$TASKGOV_CHECKPOINT_DIR/.taskgov-checkpoint so that taskgov knows how much
work a preemption would lose. On SIGTERM (preemption) it saves a checkpoint
and exits within the grace period.
"""
import argparse
import json
import os
import signal
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=60)
parser.add_argument("--step-seconds", type=float, default=0.5)
parser.add_argument("--checkpoint-every", type=int, default=5)
args = parser.parse_args()

ckpt_dir = os.environ.get("TASKGOV_CHECKPOINT_DIR", ".")
rank = int(os.environ.get("RANK", "0"))
world = int(os.environ.get("WORLD_SIZE", "1"))
ckpt_path = os.path.join(ckpt_dir, "rank-%d.json" % rank)
marker = os.path.join(ckpt_dir, ".taskgov-checkpoint")


def save(step):
    tmp = ckpt_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"step": step, "loss": 10.0 / (step + 1)}, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, ckpt_path)
    if rank == 0:
        with open(marker, "w") as f:
            f.write(str(step))
    print("checkpoint saved at step %d" % step, flush=True)


step = 0
if os.path.exists(ckpt_path):
    with open(ckpt_path) as f:
        step = json.load(f)["step"]
    print("resuming from checkpoint at step %d (resume #%s)" % (step, os.environ.get("TASKGOV_RESUME_COUNT", "0")), flush=True)
else:
    print("starting from step 0", flush=True)

stopping = False


def on_term(signum, frame):
    global stopping
    stopping = True


signal.signal(signal.SIGTERM, on_term)
print("rank %d of %d, GPUs %s" % (rank, world, os.environ.get("CUDA_VISIBLE_DEVICES", "")), flush=True)
while step < args.steps:
    if stopping:
        save(step)
        print("preempted: checkpoint saved at step %d, exiting" % step, flush=True)
        sys.exit(143)
    time.sleep(args.step_seconds)
    step += 1
    print("step %d loss %.4f" % (step, 10.0 / (step + 1)), flush=True)
    if step % args.checkpoint_every == 0:
        save(step)
print("training finished at step %d" % step, flush=True)
