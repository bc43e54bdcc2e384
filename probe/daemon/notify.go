package daemon

import (
	"log/slog"
	"time"

	sd "github.com/coreos/go-systemd/v22/daemon"
)

// notifier speaks systemd's notify protocol ($NOTIFY_SOCKET) through
// go-systemd: READY=1 once the first config runs (the unit is Type=notify,
// so `systemctl start` returns only then), RELOADING=1 and READY=1 around a
// reload, STOPPING=1, and WATCHDOG=1 at half the unit's WatchdogSec. Outside
// systemd (no $NOTIFY_SOCKET) every call is a no-op.
type notifier struct {
	log *slog.Logger
}

func (n notifier) send(state string) {
	if _, err := sd.SdNotify(false, state); err != nil {
		n.log.Warn("sd_notify failed", "state", state, "err", err)
	}
}

// watchdog returns a channel that ticks at half the watchdog interval
// systemd asked for ($WATCHDOG_USEC), or nil (never ticks) when it asked
// for none.
func (n notifier) watchdog() (<-chan time.Time, func()) {
	every, err := sd.SdWatchdogEnabled(false)
	if err != nil {
		n.log.Warn("systemd watchdog settings unreadable; not pinging it", "err", err)
	}
	if err != nil || every <= 0 {
		return nil, func() {}
	}
	t := time.NewTicker(every / 2)
	return t.C, t.Stop
}
