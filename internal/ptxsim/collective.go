package ptxsim

import (
	"fmt"
	"math/bits"
	"strings"
)

// Warp collectives: a lane that reaches one records its operands and
// waits; when every lane of the mask waits at the same instruction,
// complete computes each lane's result (block.tryCollective).

// collective returns the arrival of a lane at in.
func collective(in *instr, _ int) func(t *thread) error {
	ops := in.ops
	maskOp := ops[len(ops)-1]
	return func(t *thread) error {
		t.coll = in
		t.collMask = uint32(t.val(&maskOp))
		t.collFrame = t.fr()
		// Operand values at arrival (registers may change only after).
		for k := 1; k < len(ops)-1 && k <= 4; k++ {
			t.collVals[k-1] = t.val(&ops[k])
		}
		t.state = atCollective
		return nil
	}
}

// complete computes the results of collective in for its lanes (sorted by
// lane, all waiting).
func complete(in *instr, lanes []*thread) error {
	parts := strings.Split(in.opcode, ".")
	base := parts[0]
	mods := parts[1:]
	has := func(s string) bool {
		for _, x := range mods {
			if x == s {
				return true
			}
		}
		return false
	}
	var byLane [32]*thread
	for _, u := range lanes {
		byLane[u.lane] = u
	}
	// Results land in the frame the lane arrived from.
	setOn := func(u *thread, o *operand, v uint64, typ ptype) { setIn(u.collFrame, o, v, typ) }
	switch base {
	case "bar": // bar.warp.sync
		return nil
	case "shfl":
		mode := ""
		for _, x := range mods {
			switch x {
			case "up", "down", "bfly", "idx":
				mode = x
			}
		}
		d := in.ops[0]
		for _, u := range lanes {
			a, b, c := u.collVals[0], u.collVals[1], u.collVals[2]
			_ = a
			lane := u.lane
			bval := int(b & 31)
			cval := int(c & 31)
			seg := int(c >> 8 & 31)
			maxLane := lane&seg | cval&^seg
			minLane := lane & seg
			var j int
			var ok bool
			switch mode {
			case "up":
				j = lane - bval
				ok = j >= maxLane
			case "down":
				j = lane + bval
				ok = j <= maxLane
			case "bfly":
				j = lane ^ bval
				ok = j <= maxLane
			case "idx":
				j = minLane | bval&^seg
				ok = j <= maxLane
			default:
				return fmt.Errorf("shfl mode missing in %q", in.text)
			}
			if !ok {
				j = lane
			}
			src := byLane[j&31]
			if j < 0 || j > 31 || src == nil {
				return fmt.Errorf("%q: lane %d reads lane %d, which is not in the mask %#x", in.text, lane, j, u.collMask)
			}
			if d.kind == opPair {
				setOn(u, &d.sub[0], src.collVals[0], ptype{'b', 32})
				setOn(u, &d.sub[1], b2u(ok), ptype{'p', 1})
			} else {
				setOn(u, &d, src.collVals[0], ptype{'b', 32})
			}
		}
		return nil
	case "vote":
		d := in.ops[0]
		var ballot uint64
		for _, u := range lanes {
			if u.collVals[0] != 0 {
				ballot |= 1 << u.lane
			}
		}
		for _, u := range lanes {
			switch {
			case has("ballot"):
				setOn(u, &d, ballot, ptype{'b', 32})
			case has("all"):
				setOn(u, &d, b2u(bits.OnesCount64(ballot) == len(lanes)), ptype{'p', 1})
			case has("any"):
				setOn(u, &d, b2u(ballot != 0), ptype{'p', 1})
			case has("uni"):
				setOn(u, &d, b2u(ballot == 0 || bits.OnesCount64(ballot) == len(lanes)), ptype{'p', 1})
			default:
				return fmt.Errorf("vote mode in %q", in.text)
			}
		}
		return nil
	case "match":
		d := in.ops[0]
		w := 32
		if has("b64") {
			w = 64
		}
		for _, u := range lanes {
			var peers uint64
			for _, v := range lanes {
				if v.collVals[0]&mask(w) == u.collVals[0]&mask(w) {
					peers |= 1 << v.lane
				}
			}
			switch {
			case has("any"):
				setOn(u, &d, peers, ptype{'b', 32})
			case has("all"):
				all := bits.OnesCount64(peers) == len(lanes)
				r := uint64(0)
				if all {
					r = uint64(u.collMask)
				}
				if d.kind == opPair {
					setOn(u, &d.sub[0], r, ptype{'b', 32})
					setOn(u, &d.sub[1], b2u(all), ptype{'p', 1})
				} else {
					setOn(u, &d, r, ptype{'b', 32})
				}
			default:
				return fmt.Errorf("match mode in %q", in.text)
			}
		}
		return nil
	case "redux":
		d := in.ops[0]
		op := mods[1]
		signed := has("s32")
		var acc uint64
		for i, u := range lanes {
			v := u.collVals[0] & 0xFFFFFFFF
			if i == 0 {
				acc = v
				continue
			}
			switch op {
			case "add":
				acc = (acc + v) & 0xFFFFFFFF
			case "and":
				acc &= v
			case "or":
				acc |= v
			case "xor":
				acc ^= v
			case "min", "max":
				less := v < acc
				if signed {
					less = int32(v) < int32(acc)
				}
				if less == (op == "min") {
					acc = v
				}
			default:
				return fmt.Errorf("redux.%s", op)
			}
		}
		for _, u := range lanes {
			setOn(u, &d, acc, ptype{'b', 32})
		}
		return nil
	}
	return fmt.Errorf("collective %q is not modelled", in.text)
}
