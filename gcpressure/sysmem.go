package gcpressure

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/gpuarr/gpuarr/internal/units"
)

// systemMemory is the memory the process can use: the machine's, narrowed
// to its control group's limit when that is tighter (a container).
type systemMemory struct {
	Total     uint64 // MemTotal, or the cgroup's limit
	Available uint64 // MemAvailable, or the cgroup's headroom (limit - usage)
	Cgroup    bool   // a cgroup limit narrowed the figures
}

// currentSystemMemory reads /proc/meminfo and the process's memory cgroup
// (v2, or v1's memory controller), walking up the hierarchy since a limit
// set on an ancestor binds too.
func currentSystemMemory() (systemMemory, error) { return readSystemMemory(os.DirFS("/")) }

func readSystemMemory(fsys fs.FS) (systemMemory, error) {
	var sm systemMemory
	info, err := fs.ReadFile(fsys, "proc/meminfo")
	if err != nil {
		return sm, err
	}
	fields := parseMeminfo(info)
	total, ok := fields["MemTotal"]
	if !ok {
		return sm, errors.New("gcpressure: /proc/meminfo has no MemTotal")
	}
	avail, ok := fields["MemAvailable"]
	if !ok { // kernels before 3.14
		avail = fields["MemFree"] + fields["Buffers"] + fields["Cached"]
	}
	sm.Total, sm.Available = total, min(avail, total)
	for _, cg := range cgroupLimits(fsys) {
		if cg.limit >= sm.Total {
			continue // no limit, or none tighter than the machine
		}
		sm.Cgroup = true
		sm.Total = cg.limit
		sm.Available = min(sm.Available, cg.limit-min(cg.usage, cg.limit))
	}
	sm.Available = min(sm.Available, sm.Total)
	return sm, nil
}

// parseMeminfo returns /proc/meminfo's fields in bytes.
func parseMeminfo(b []byte) map[string]uint64 {
	m := make(map[string]uint64)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			continue
		}
		if len(f) > 1 && f[1] == "kB" {
			n *= 1024
		}
		m[name] = n
	}
	return m
}

// cgLimit is one cgroup's memory limit and usage.
type cgLimit struct{ limit, usage uint64 }

// cgroupLimits returns the limits on the process's memory cgroup and its
// ancestors that can be read, v2 and v1 alike.
func cgroupLimits(fsys fs.FS) []cgLimit {
	self, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return nil
	}
	var out []cgLimit
	for line := range strings.Lines(string(self)) {
		// hierarchy-ID:controller-list:path
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			// v2: unified at /sys/fs/cgroup, or at .../unified on hybrid systems.
			for _, mount := range []string{"sys/fs/cgroup", "sys/fs/cgroup/unified"} {
				out = append(out, walkCgroup(fsys, mount, parts[2], "memory.max", "memory.current")...)
			}
		case hasController(parts[1], "memory"):
			out = append(out, walkCgroup(fsys, "sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes", "memory.usage_in_bytes")...)
		}
	}
	return out
}

func hasController(list, name string) bool {
	for c := range strings.SplitSeq(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// walkCgroup reads the limit files of dir and its ancestors under mount.
// Inside a container the process's path is often not visible under the
// mount (the mount is the container's own cgroup), so the mount's root is
// always read as well.
func walkCgroup(fsys fs.FS, mount, dir, limitFile, usageFile string) []cgLimit {
	var out []cgLimit
	dir = path.Clean("/" + dir)
	for {
		p := path.Join(mount, dir)
		if lim, ok := readCgroupValue(fsys, path.Join(p, limitFile)); ok {
			usage, _ := readCgroupValue(fsys, path.Join(p, usageFile))
			out = append(out, cgLimit{limit: lim, usage: usage})
		}
		if dir == "/" {
			return out
		}
		dir = path.Dir(dir)
	}
}

// readCgroupValue reads a byte count; "max" (v2's no limit) is not one.
func readCgroupValue(fsys fs.FS, name string) (uint64, bool) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

func (sm systemMemory) String() string {
	src := "system"
	if sm.Cgroup {
		src = "cgroup"
	}
	return fmt.Sprintf("%s available of %s (%s)", units.FormatBytes(sm.Available), units.FormatBytes(sm.Total), src)
}
