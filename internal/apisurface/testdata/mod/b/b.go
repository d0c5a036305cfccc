package b

import alias "example.com/m/a"

func B() {
	var t alias.T
	t.M()
	alias.Used()
}
