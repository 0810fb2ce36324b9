package collective

import (
	"fmt"
	"strings"
)

// firstHost is the first host of a Slurm host list such as
// "gpu[01-04,07],login1" (gpu01) or "rack[1-2]-node[08-09]" (rack1-node08):
// each bracket group contributes its first number, zero padding kept.
// With the default block distribution, task 0 of a step runs there.
func firstHost(list string) (string, error) {
	list = strings.TrimSpace(list)
	if list == "" {
		return "", fmt.Errorf("an empty host list")
	}
	// The first host ends at the first comma outside brackets.
	depth, end := 0, len(list)
	for i, r := range list {
		switch r {
		case '[':
			depth++
			if depth > 1 {
				return "", fmt.Errorf("nested brackets at byte %d", i)
			}
		case ']':
			depth--
			if depth < 0 {
				return "", fmt.Errorf("a ] without its [ at byte %d", i)
			}
		case ',':
			if depth == 0 && end == len(list) {
				end = i
			}
		}
	}
	if depth != 0 {
		return "", fmt.Errorf("a [ without its ]")
	}
	host := list[:end]
	var b strings.Builder
	for {
		open := strings.IndexByte(host, '[')
		if open < 0 {
			b.WriteString(host)
			break
		}
		closing := strings.IndexByte(host, ']')
		b.WriteString(host[:open])
		group := host[open+1 : closing]
		first, _, _ := strings.Cut(group, ",")
		low, _, _ := strings.Cut(first, "-")
		if low == "" || strings.Trim(low, "0123456789") != "" {
			return "", fmt.Errorf("range [%s] does not start with a number", group)
		}
		b.WriteString(low)
		host = host[closing+1:]
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("an empty first host")
	}
	return b.String(), nil
}
