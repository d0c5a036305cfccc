package c

// branchy has a complexity of 8: 1, if, &&, for, range, case 1, if, ||.
func branchy(xs []int, a, b bool) int {
	n := 0
	if a && b {
		n++
	}
	for i := 0; i < 3; i++ {
		n += i
	}
	for _, x := range xs {
		switch x {
		case 1:
			n++
		default:
			n--
		}
	}
	if a || b {
		n++
	}
	return n
}

type rule struct{ ID, Message string }

// A rule's own ID is how code names it; the message spells another rule's.
var r = rule{ID: "PL901", Message: "see PL902"}
