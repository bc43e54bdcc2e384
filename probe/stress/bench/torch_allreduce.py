"""PyTorch's torch.distributed.all_reduce (NCCL backend), one process per
GPU, timed like nccl-tests' all_reduce_perf: out of place is not offered
by torch, so this is in place; 5 warm-up operations, then 20 timed with a
host timer around the launches and a CUDA synchronisation. Prints one
line per size: dtype bytes time_us algbw busbw. Run by allreduce_run.sh;
NVLink multicast stays off (the caller's environment)."""
import os, sys, time
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world, maxbytes, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", rank))
    factor = 2 * (world - 1) / world
    for dtype, name in ((torch.float32, "float32"), (torch.bfloat16, "bfloat16")):
        esize = torch.tensor([], dtype=dtype).element_size()
        size = 8
        while size <= maxbytes:
            n = size // esize
            x = torch.ones(n, dtype=dtype, device="cuda")
            for _ in range(5):
                dist.all_reduce(x)
            torch.cuda.synchronize()
            iters = 20
            t0 = time.perf_counter()
            for _ in range(iters):
                dist.all_reduce(x)
            torch.cuda.synchronize()
            sec = (time.perf_counter() - t0) / iters
            if rank == 0:
                alg = size / sec / 1e9
                print(f"{name} {size} {sec*1e6:.2f} {alg:.2f} {alg*factor:.2f}", flush=True)
            del x
            size *= 2
    dist.destroy_process_group()


if __name__ == "__main__":
    world, maxbytes = int(sys.argv[1]), int(sys.argv[2])
    mp.spawn(worker, args=(world, maxbytes, 29500 + os.getpid() % 1000), nprocs=world)
