package paging

import (
	"errors"
	"strconv"
	"testing"
)

func TestParse(t *testing.T) {
	ok := []struct {
		limit, offset string
		want          Request
	}{
		{"", "", Request{Limit: DefaultLimit, Offset: 0}},
		{"3", "", Request{Limit: 3}},
		{"", "50", Request{Limit: DefaultLimit, Offset: 50}},
		{"10", "20", Request{Limit: 10, Offset: 20}},
		{"0", "0", Request{Limit: 0, Offset: 0}},
		{strconv.Itoa(MaxLimit), "", Request{Limit: MaxLimit}},
	}
	for _, tc := range ok {
		got, err := Parse(tc.limit, tc.offset)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q,%q) = %+v, %v; want %+v", tc.limit, tc.offset, got, err, tc.want)
		}
	}
	bad := [][2]string{{"x", ""}, {"-1", ""}, {"", "y"}, {"", "-5"}, {strconv.Itoa(MaxLimit + 1), ""}, {"1.5", ""}}
	for _, tc := range bad {
		if _, err := Parse(tc[0], tc[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q,%q) error = %v; want ErrInvalid", tc[0], tc[1], err)
		}
	}
}

func TestSlice(t *testing.T) {
	all := []int{1, 2, 3, 4, 5}
	if got := Slice(all, Request{Limit: 2, Offset: 1}); len(got) != 2 || got[0] != 2 {
		t.Errorf("got %v", got)
	}
	if got := Slice(all, Request{Limit: 10, Offset: 4}); len(got) != 1 || got[0] != 5 {
		t.Errorf("got %v", got)
	}
	if got := Slice(all, Request{Limit: 10, Offset: 9}); len(got) != 0 || got == nil {
		t.Errorf("got %v", got)
	}
	if p := (Request{Limit: 3, Offset: 6}).Of(40); p != (Page{Total: 40, Offset: 6, Limit: 3}) {
		t.Errorf("Of = %+v", p)
	}
}
