// Command gpuprobe is the agent on every rented GPU node: `check` is the
// acceptance test after delivery, `run` the scheduled daemon. Each subcommand
// lives in its own file and registers itself in commands.
//
// Every reading takes one path through the probe, the observation pipeline,
// and each probe package's doc says which step it is:
//
//  1. read: the hardware into plain data (probe/gpu/nvmlread, probe/pcisys,
//     probe/kmsg, probe/host, probe/usage; probe/stress and probe/netcheck
//     measure);
//  2. judge: the data into wire.Checks (probe/authn, probe/health,
//     probe/crosscheck, probe/stress/judge; probe/netcheck and probe/host
//     judge what they measured);
//  3. observe: the daemon (probe/daemon) schedules the checks and makes
//     each job's checks an observation; `check` (probe/checkrun) prints
//     them instead, and stops here;
//  4. spool: the durable outbox (probe/spool);
//  5. push: signed delivery to the backend (probe/push).
//
// probe/wire is the protocol of steps 3 to 5, the one package the backend
// shares.
package main
