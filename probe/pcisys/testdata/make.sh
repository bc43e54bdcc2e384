#!/bin/sh
# Builds the fixture trees under testdata (committed; rerun only to change
# them). h200x2: the real 2xH200 VM's GPUs as the kernel shows them
# (addresses, ids and UUIDs from the recorded NVML snapshot), plus the
# NVIDIA audio-less PCI bridge the VM also has. one-gpu: the same machine
# with only GPU 0 on the bus, as a machine whose NVML shim shows two.
set -e
cd "$(dirname "$0")"
gpu() { # tree addr uuid
	t=$1 a=$2
	d=$t/sys/devices/pci0000:00/$a
	mkdir -p "$d" "$t/sys/bus/pci/devices"
	echo 0x030200 >"$d/class"; echo 0x10de >"$d/vendor"; echo 0x2335 >"$d/device"
	echo 0x10de >"$d/subsystem_vendor"; echo 0x18bf >"$d/subsystem_device"; echo 0xa1 >"$d/revision"
	echo "32.0 GT/s PCIe" >"$d/max_link_speed"; echo 16 >"$d/max_link_width"
	echo "2.5 GT/s PCIe" >"$d/current_link_speed"; echo 16 >"$d/current_link_width"
	echo -1 >"$d/numa_node"
	ln -sfn "../../../devices/pci0000:00/$a" "$t/sys/bus/pci/devices/$a"
	p=$t/proc/driver/nvidia/gpus/$a
	mkdir -p "$p"
	printf 'Model: \t\t NVIDIA H200\nIRQ:   \t\t 35\nGPU UUID: \t %s\nVideo BIOS: \t 96.00.a5.00.1a\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\nBus Location: \t %s\nDevice Minor: \t 0\nGPU Excluded:\t No\n' "$3" "$a" >"$p/information"
}
bridge() { # tree addr: a non-GPU device, which must be ignored
	d=$1/sys/devices/pci0000:00/$2
	mkdir -p "$d"
	echo 0x060000 >"$d/class"; echo 0x8086 >"$d/vendor"; echo 0x29c0 >"$d/device"
	echo 0x1af4 >"$d/subsystem_vendor"; echo 0x1100 >"$d/subsystem_device"; echo 0x00 >"$d/revision"
	ln -sfn "../../../devices/pci0000:00/$2" "$1/sys/bus/pci/devices/$2"
}
rm -rf h200x2 one-gpu
gpu h200x2 0000:00:06.0 GPU-a5c781a9-deb2-83be-8465-853b4529b065
gpu h200x2 0000:00:07.0 GPU-9f188c2c-5876-61c8-1c27-7957c8228608
bridge h200x2 0000:00:00.0
gpu one-gpu 0000:00:06.0 GPU-a5c781a9-deb2-83be-8465-853b4529b065
bridge one-gpu 0000:00:00.0
