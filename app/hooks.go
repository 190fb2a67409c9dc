package app

import "github.com/feria/feria/ports/salesport"

// orderObservers are the modules that react to a stored order, in the
// storing transaction. A module adds itself from its wiring file's init; the
// module storing orders reads the list when it is wired (after every init).
var orderObservers []func(d *Deps) salesport.OrderObserver
