package stress

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpusla/gpusla/probe/stress/result"
)

// TopologyReader is implemented by Samplers that can read how GPUs are
// connected (the live NVML sampler); a Sampler without it leaves the
// report's topology empty, saying so.
type TopologyReader interface {
	Topology(busIDs []string) ([]result.TopoPair, error)
}

func (s *nvmlSampler) Topology(busIDs []string) ([]result.TopoPair, error) {
	devs := make([]nvml.Device, len(busIDs))
	for i, b := range busIDs {
		d, err := s.dev(b)
		if err != nil {
			return nil, err
		}
		devs[i] = d
	}
	return readTopology(devs)
}

// readPairs reads the topology of the tested GPUs through the sampler and
// numbers the pairs by CUDA ordinal.
func readPairs(s Sampler, gpus []*device, busIDs []string) ([]result.TopoPair, string) {
	tr, ok := s.(TopologyReader)
	if !ok || s == nil {
		return nil, "no NVML: GPU topology not read"
	}
	pairs, err := tr.Topology(busIDs)
	if err != nil {
		return nil, err.Error()
	}
	for i := range pairs {
		pairs[i].A, pairs[i].B = gpus[pairs[i].A].Index, gpus[pairs[i].B].Index
	}
	return pairs, ""
}

type pciAddr struct{ domain, bus, dev uint32 }

func addrOf(p nvml.PciInfo) pciAddr { return pciAddr{p.Domain, p.Bus, p.Device} }

// readTopology reads every pair of devs (index i is CUDA ordinal order as
// given) from NVML: each active NVLink's far end, then the PCIe common
// ancestor of pairs that no NVLink joins.
func readTopology(devs []nvml.Device) ([]result.TopoPair, error) {
	addrs := make([]pciAddr, len(devs))
	index := map[pciAddr]int{}
	for i, d := range devs {
		p, ret := d.GetPciInfo()
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("GPU %d PCI info: %s", i, nvml.ErrorString(ret))
		}
		addrs[i] = addrOf(p)
		index[addrs[i]] = i
	}
	direct := make([]map[int]int, len(devs)) // links from i to GPU j
	switched := make([]int, len(devs))       // links from i to an NVSwitch
	for i, d := range devs {
		direct[i] = map[int]int{}
		for l := 0; l < nvml.NVLINK_MAX_LINKS; l++ {
			st, ret := d.GetNvLinkState(l)
			if ret == nvml.ERROR_NOT_SUPPORTED || ret == nvml.ERROR_INVALID_ARGUMENT {
				break
			}
			if ret != nvml.SUCCESS {
				return nil, fmt.Errorf("GPU %d NVLink %d state: %s", i, l, nvml.ErrorString(ret))
			}
			if st != nvml.FEATURE_ENABLED {
				continue
			}
			rp, ret := d.GetNvLinkRemotePciInfo(l)
			if ret != nvml.SUCCESS {
				return nil, fmt.Errorf("GPU %d NVLink %d far end: %s", i, l, nvml.ErrorString(ret))
			}
			kind, ret := d.GetNvLinkRemoteDeviceType(l)
			if ret != nvml.SUCCESS {
				// Older drivers cannot say what is at the far end: a GPU
				// of this machine is recognised by its address, anything
				// else is a switch.
				kind = nvml.NVLINK_DEVICE_TYPE_UNKNOWN
			}
			j, isGPU := index[addrOf(rp)]
			switch {
			case isGPU && kind != nvml.NVLINK_DEVICE_TYPE_SWITCH:
				direct[i][j]++
			case kind == nvml.NVLINK_DEVICE_TYPE_SWITCH || kind == nvml.NVLINK_DEVICE_TYPE_UNKNOWN:
				switched[i]++
			}
		}
	}
	var out []result.TopoPair
	for i := range devs {
		for j := i + 1; j < len(devs); j++ {
			p := result.TopoPair{A: i, B: j}
			switch n := min(direct[i][j], direct[j][i]); {
			case n > 0:
				p.Path, p.Links = fmt.Sprintf("NV%d", n), n
			case switched[i] > 0 && switched[j] > 0:
				p.Path, p.Links = "NVSwitch", min(switched[i], switched[j])
			default:
				lvl, ret := devs[i].GetTopologyCommonAncestor(devs[j])
				if ret != nvml.SUCCESS {
					return nil, fmt.Errorf("GPUs %d and %d PCIe path: %s", i, j, nvml.ErrorString(ret))
				}
				p.Path = pciePath(lvl)
			}
			out = append(out, p)
		}
	}
	return out, nil
}

func pciePath(l nvml.GpuTopologyLevel) string {
	switch l {
	case nvml.TOPOLOGY_INTERNAL:
		return "SELF"
	case nvml.TOPOLOGY_SINGLE:
		return "PIX"
	case nvml.TOPOLOGY_MULTIPLE:
		return "PXB"
	case nvml.TOPOLOGY_HOSTBRIDGE:
		return "PHB"
	case nvml.TOPOLOGY_NODE:
		return "NODE"
	case nvml.TOPOLOGY_SYSTEM:
		return "SYS"
	}
	return fmt.Sprintf("level %d", l)
}
