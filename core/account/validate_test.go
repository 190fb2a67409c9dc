package account_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/kernel"
)

// The user validation kept its messages when it moved to kernel.Problems.
func TestUserValidate(t *testing.T) {
	bad := "purple"
	tests := []struct {
		name   string
		user   account.User
		causes []kernel.Cause
	}{
		{"valid", account.User{ID: 1, SiteID: "MLA", UserType: "normal"}, nil},
		{"every rule", account.User{ID: 0, SiteID: "XXX", UserType: "robot", Reputation: &bad}, []kernel.Cause{
			{Code: "user_id", Message: "user_id must be a positive integer"},
			{Code: "site_id", Message: "site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC"},
			{Code: "user_type", Message: "user_type must be normal or brand"},
			{Code: "reputation", Message: "reputation must be green, yellow, orange, red or null"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.user.Validate()
			if tt.causes == nil {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			var e *kernel.Error
			if !errors.As(err, &e) || !errors.Is(err, account.ErrInvalidUser) || e.Message != tt.causes[0].Message || !reflect.DeepEqual(e.Causes, tt.causes) {
				t.Fatalf("Validate = %#v, want message %q and causes %+v", err, tt.causes[0].Message, tt.causes)
			}
		})
	}
}
