package trial

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/stat"
)

// The seed's network lines.
const (
	// IperfMinPct: "达到标称内网带宽的70%以上" (以上: at or above).
	IperfMinPct = 70.0
	// GatewayMaxMS: "如果平均延迟超过2ms" fails (超过: above), so 2 ms
	// itself passes.
	GatewayMaxMS = 2.0
	// GatewayMaxLossPct: the seed's ping -c 10 names no loss figure; the
	// probe's default bar (network.gateway.max_loss_pct).
	GatewayMaxLossPct = 5.0
)

// IperfNominal reads the nominal rate from an iperf3 result's criterion,
// which the probe writes as "≥ 70 % of 10000 Mbit/s" (probe/netcheck).
var IperfNominal = regexp.MustCompile(`of ([0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?) Mbit/s`)

// IperfShare is an iperf3 result's share of the nominal rate its
// criterion names (1 = 100 %); false when it has no number or nominal.
func IperfShare(number *float64, criterion string) (float64, bool) {
	if number == nil {
		return 0, false
	}
	m := IperfNominal.FindStringSubmatch(criterion)
	if m == nil {
		return 0, false
	}
	nominal, err := strconv.ParseFloat(m[1], 64)
	if err != nil || nominal <= 0 {
		return 0, false
	}
	return *number / nominal, true
}

// mirror: curl -I to the package mirror — every HEAD answered (status
// below 400), within the latency bar where one is set; the median latency
// is recorded (the seed measures "连通性和延迟" and names no bar).
func mirror(n Node) Row {
	x := Row{Key: KeyMirror, CriterionText: msg.New("the package mirror answers every HEAD, within the latency bar where one is set (curl -I: connectivity and latency)")}
	reach := judged(n.Results, func(r *Result) bool {
		return strings.HasPrefix(r.Name, "net.http.") && strings.HasSuffix(r.Name, ".reach")
	}, false)
	lat := judged(n.Results, func(r *Result) bool {
		return strings.HasPrefix(r.Name, "net.http.") && strings.HasSuffix(r.Name, ".latency")
	}, true)
	x.N = len(reach)
	if len(reach) == 0 {
		x.Verdict = NotMeasured
		x.AskText = msg.New("Name the package mirror: `gpuprobe trial --mirror http://mirrors.aliyun.com`.")
		return x
	}
	failed := 0
	for _, r := range reach {
		if r.Verdict != resPass {
			failed++
		}
	}
	x.Verdict, x.Checks = worst(append(append([]Result(nil), reach...), lat...))
	if len(lat) > 0 {
		x.Plain(stat.Median(numbers(lat)), "ms", 1)
	}
	x.DetailText = msg.New("%d of %d answered", len(reach)-failed, len(reach))
	switch {
	case x.Verdict != Pass:
		x.DetailText = msg.New("%d of %d answered; %s", len(reach)-failed, len(reach), msg.Plain(strings.Join(x.Checks, ", ")))
		x.AskText = msg.New("The outside world is not always reachable, or slowly: ask about the node's internet access and its bandwidth.")
	case len(lat) == 0:
		// "测试外网连通性和延迟": connectivity and latency; half of it is
		// no pass.
		x.Verdict = NotMeasured
		x.DetailText = msg.New("%d of %d answered; the latency was not measured", len(reach)-failed, len(reach))
		x.AskText = msg.New("Run `gpuprobe trial --mirror http://mirrors.aliyun.com`: it times each HEAD.")
	}
	return x
}

// iperf: iperf3 to a second node — the median run at 70 % of the
// advertised internal bandwidth or more.
func iperf(n Node) Row {
	x := Row{Key: KeyIperf, CriterionText: msg.New("iperf3 to a second node reaches %g %% of the advertised internal bandwidth or more (the median run)", IperfMinPct)}
	rs := judged(n.Results, func(r *Result) bool { return strings.HasPrefix(r.Name, "net.iperf3.") }, false)
	var shares []float64
	var broken []msg.Text
	var nominals []string
	for _, r := range rs {
		s, ok := IperfShare(r.Number, r.Criterion)
		if ok {
			if m := IperfNominal.FindStringSubmatch(r.Criterion); !slices.Contains(nominals, m[1]) {
				nominals = append(nominals, m[1])
			}
		}
		if n.AdvertisedMbps > 0 && r.Number != nil && r.Unit == "Mbit/s" && !math.IsNaN(*r.Number) && !math.IsInf(*r.Number, 0) {
			// The provider's published figure is the spec, not the
			// one the renter typed.
			s, ok = *r.Number/n.AdvertisedMbps, true
		}
		switch {
		case ok:
			shares = append(shares, 100*s)
		case r.Verdict == resFail:
			broken = append(broken, msg.FromProbe(r.Detail, r.DetailText))
		}
	}
	x.N = len(shares)
	if len(shares) == 0 {
		x.Verdict = NotMeasured
		x.AskText = msg.New("Run `gpuprobe iperf-server` on a second node of the provider and `gpuprobe trial --iperf-peer HOST --iperf-nominal MBITS` here.")
		if len(broken) > 0 {
			x.DetailText = broken[len(broken)-1]
		}
		return x
	}
	x.SetFigure(stat.Median(shares), "%", Line{Value: IperfMinPct, Op: ">="}, 1)
	// The advertised figure is the one the renter gave the probe
	// (--iperf-nominal): said, so that a reader can hold it to the
	// provider's page.
	x.DetailText = msg.New("of %s Mbit/s advertised, as the probe was told (--iperf-nominal)", msg.Plain(strings.Join(nominals, ", ")))
	if adv := strconv.FormatFloat(n.AdvertisedMbps, 'f', -1, 64); n.AdvertisedMbps > 0 {
		x.DetailText = msg.New("of %s Mbit/s advertised in the terms (network.internal_mbps)", msg.Plain(adv))
		if len(nominals) > 0 && (len(nominals) > 1 || nominals[0] != adv) {
			x.DetailText = msg.New("of %s Mbit/s advertised in the terms (network.internal_mbps); the probe was told %s", msg.Plain(adv), msg.Plain(strings.Join(nominals, ", ")))
		}
	}
	if x.Verdict == Fail {
		x.AskText = msg.New("What are the single-machine and the cross-node bandwidth limits, and is the advertised figure cross-rack? Ask for the bandwidth topology in writing.")
	}
	return x
}

// gateway: ping -c 10 to the gateway — the median of the runs' averages
// at 2 ms or less (over 2 ms fails), every run answered and, as the probe
// holds it, no more than 5 % lost.
func gateway(n Node) Row {
	x := Row{Key: KeyGateway, CriterionText: msg.New("ping to the gateway averages %g ms or less (the median run; over %g ms means virtualisation overhead or shared bandwidth), every run answered, at most %g %% lost", GatewayMaxMS, GatewayMaxMS, GatewayMaxLossPct)}
	rtt := judged(n.Results, func(r *Result) bool { return r.Name == "net.gateway.rtt" }, true)
	loss := judged(n.Results, func(r *Result) bool { return r.Name == "net.gateway.loss" }, true)
	reach := judged(n.Results, func(r *Result) bool { return r.Name == "net.gateway.reach" }, false)
	x.N = len(rtt)
	unanswered := 0
	for _, r := range reach {
		if r.Verdict != resPass {
			unanswered++
		}
	}
	if len(rtt) == 0 {
		x.Verdict = NotMeasured
		x.AskText = msg.New("Let `gpuprobe trial` ping the gateway (--gateway IP where the default route is not it).")
		if unanswered > 0 {
			x.Verdict, x.DetailText = Fail, msg.New("%d of %d runs without a reply", unanswered, len(reach))
		}
		return x
	}
	x.SetFigure(stat.Median(numbers(rtt)), "ms", Line{Value: GatewayMaxMS, Op: "<="}, 3)
	lost := 0.0
	if len(loss) > 0 {
		lost = stat.Mean(numbers(loss))
	}
	lossLine := Line{Value: GatewayMaxLossPct, Op: "<="}
	x.DetailText = msg.New("loss %s %%", msg.Plain(Format(lost, lossLine, 1)))
	switch {
	case unanswered > 0:
		x.Verdict = Fail
		x.DetailText = msg.New("%d of %d runs without a reply; loss %s %%", unanswered, len(reach), msg.Plain(Format(lost, lossLine, 1)))
	case len(loss) == 0:
		// No loss figure came with the round trips: never print one.
		x.DetailText = msg.New("loss not reported")
	case !lossLine.Passes(lost):
		x.Verdict = Fail
		x.DetailText = msg.New("loss %s %%, over %g %%", msg.Plain(Format(lost, lossLine, 1)), GatewayMaxLossPct)
	}
	// The median run decides, robust to one spike; the seed judges each
	// ping -c 10 on its own, so the runs over its line are said.
	rttLine := Line{Value: GatewayMaxMS, Op: "<="}
	over, worstRun := 0, math.Inf(-1)
	for _, v := range numbers(rtt) {
		worstRun = math.Max(worstRun, v)
		if !rttLine.Passes(v) {
			over++
		}
	}
	if over > 0 && x.Verdict == Pass {
		x.DetailText = msg.New("%s; %d of %d runs averaged over %g ms (the slowest %s ms)", x.DetailText, over, len(rtt), GatewayMaxMS, msg.Plain(Format(worstRun, rttLine, 3)))
	}
	if x.Verdict == Fail {
		x.AskText = msg.New("Is the network shared bandwidth, or is a virtualisation layer in the path? What latency to the gateway do you guarantee?")
	}
	return x
}
