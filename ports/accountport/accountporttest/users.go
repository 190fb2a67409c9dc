package accountporttest

import (
	"context"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/ports/accountport"
)

// Users is the accounts other modules' use-case tests see: it knows the
// users given, fails with Down's error for the ids in Down (a backend that
// is down), and answers account.ErrUserNotFound for any other id. Only
// User and Users are implemented.
type Users struct {
	accountport.Service
	Known map[int64]account.User
	Down  map[int64]error
}

// NewUsers returns the accounts that know us.
func NewUsers(us ...account.User) Users {
	u := Users{Known: map[int64]account.User{}, Down: map[int64]error{}}
	for _, x := range us {
		u.Known[x.ID] = x
	}
	return u
}

// User implements accountport.Service.
func (u Users) User(_ context.Context, id int64) (account.User, error) {
	if err, ok := u.Down[id]; ok {
		return account.User{}, err
	}
	if x, ok := u.Known[id]; ok {
		return x, nil
	}
	return account.User{}, account.ErrUserNotFound
}

// Users implements accountport.Service: the known users among ids, once
// each; the error of the first id in Down.
func (u Users) Users(_ context.Context, ids []int64) ([]account.User, error) {
	out := []account.User{}
	seen := map[int64]bool{}
	for _, id := range ids {
		if err, ok := u.Down[id]; ok {
			return nil, err
		}
		if x, ok := u.Known[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, x)
		}
	}
	return out, nil
}
