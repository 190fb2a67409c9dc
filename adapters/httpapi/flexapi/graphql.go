package flexapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	graphql "github.com/graph-gophers/graphql-go"
	gqlerrors "github.com/graph-gophers/graphql-go/errors"

	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/flexport"
)

// configurationSchema is the configuration read of area E as a GraphQL
// schema: configuration(user_id, service_id) and the subfields the
// contract lists, with their names.
const configurationSchema = `
schema { query: Query }

"A 64-bit integer: user, service and address ids."
scalar Long

type Query {
	"The configuration of the caller's subscription to a service on the path's site."
	configuration(user_id: Long!, service_id: Long!): Configuration
}

type Configuration {
	address: Address!
	availables: Availables!
	delivery_ranges: DeliveryRanges!
	delivery_window: String!
	disabled_features: [String!]!
	is_moderated: Boolean!
	subscription: Subscription!
	working_days: [String!]!
	zones: [Zone!]!
}

type Address { id: Long! address_line: String! city: City! zip_code: String! }
type City { id: String! name: String! }

type Availables { capacity_range: CapacityRange! cutoff: [Int!]! ranges: [Int!]! }
type CapacityRange { from: Int! to: Int! }

type DeliveryRanges { week: [DeliveryRange!]! saturday: [DeliveryRange!] sunday: [DeliveryRange!] }
type DeliveryRange {
	calculated_cutoff: Int!
	capacity: Int!
	et_hour: Int!
	from: Int!
	processing_time: Int!
	to: Int!
	type: String!
}

type Subscription {
	creation_date: String!
	service_id: Long!
	site_id: String!
	status: Status!
	training_times: TrainingTimes
	user_id: Long!
}
type Status { id: String! }
type TrainingTimes { original: Amount! remaining: Amount! activation_date: String }
type Amount { value: Int! unit: String! }

type Zone {
	enabled: Boolean!
	id: String!
	is_mandatory: Boolean!
	label: String!
	neighborhoods: [String!]!
	price: Price!
	selected: Boolean!
}
type Price { cents: String! currency_id: String! decimal_separator: String! fraction: String! symbol: String! }
`

// Errors of the configuration read that GraphQL raises. A query that does
// not parse fails "to create schema in graphql operation"; one that parses
// but does not fit the schema (unknown field, bad argument, no operation) is
// an "invalid query". The library's own text goes in the cause.
var (
	errGraphQLSyntax = kernel.E(kernel.Invalid, "bad_request", "failed to create schema in graphql operation")
	errInvalidQuery  = kernel.E(kernel.Invalid, "bad_request", "invalid query")
)

// Long is a 64-bit integer scalar: GraphQL's Int is 32 bits and user ids
// are not bound to that.
type Long int64

// ImplementsGraphQLType tells the library Long implements the Long scalar.
func (Long) ImplementsGraphQLType(name string) bool { return name == "Long" }

// UnmarshalGraphQL accepts an integer literal, or an integral number from
// the JSON variables; strings and fractions are refused.
func (l *Long) UnmarshalGraphQL(input any) error {
	switch v := input.(type) {
	case int32:
		*l = Long(v)
	case int64:
		*l = Long(v)
	case int:
		*l = Long(v)
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return fmt.Errorf("%v is not an integer", v)
		}
		*l = Long(v)
	default:
		return fmt.Errorf("an integer is required, got %T", input)
	}
	return nil
}

// MarshalJSON writes the number.
func (l Long) MarshalJSON() ([]byte, error) { return strconv.AppendInt(nil, int64(l), 10), nil }

// graph executes configuration queries on the flex service.
type graph struct{ schema *graphql.Schema }

// newGraph parses the schema and binds it to svc. The schema is a constant:
// a resolver that does not fit it is a programming error that panics at
// start-up (every HTTP test starts the app), never on a request.
func newGraph(svc flexport.Service) *graph {
	return &graph{schema: graphql.MustParseSchema(configurationSchema, &queryResolver{svc: svc}, graphql.UseFieldResolvers(),
		graphql.MaxDepth(maxQueryDepth), graphql.MaxQueryLength(maxQueryLength))}
}

// Bounds of a configuration query: the schema is 4 levels deep and a query
// naming every field twice is under 4 KB, so these refuse only abuse.
const (
	maxQueryDepth  = 8
	maxQueryLength = 16 << 10
)

type siteKey struct{}

// execute runs a query for the path's site and answers GraphQL's data
// object itself ({"configuration": ...}, or the alias the query gives it).
// Errors become the contract's answers: the first resolver error as it is (404s,
// 400 "can't access to resource", outages), else the syntax or validation
// error.
func (g *graph) execute(ctx context.Context, site, query, operation string, variables map[string]any) (json.RawMessage, error) {
	res := g.schema.Exec(context.WithValue(ctx, siteKey{}, site), query, operation, variables)
	if len(res.Errors) == 0 {
		return res.Data, nil
	}
	for _, e := range res.Errors {
		if e.ResolverError != nil {
			return nil, e.ResolverError
		}
	}
	first := res.Errors[0]
	detail := strings.TrimPrefix(first.Error(), "graphql: ")
	if errors.Is(first, gqlerrors.ErrSyntax) {
		return nil, errGraphQLSyntax.WithCause("query", detail)
	}
	return nil, errInvalidQuery.WithCause("query", detail)
}

// queryResolver is the Query type.
type queryResolver struct{ svc flexport.Service }

// Configuration resolves configuration(user_id, service_id).
func (q *queryResolver) Configuration(ctx context.Context, args struct {
	UserID    Long
	ServiceID Long
}) (*configurationView, error) {
	site, _ := ctx.Value(siteKey{}).(string)
	sub, err := q.svc.Configuration(ctx, site, int64(args.UserID), int64(args.ServiceID))
	if err != nil {
		return nil, err
	}
	return viewOf(sub), nil
}

// The views below are the configuration in the types the library binds to
// the schema (Int is int32 there); field names match the schema's with the
// underscores left out.

type configurationView struct {
	Address          addressView
	Availables       availablesView
	DeliveryRanges   deliveryRangesView
	DeliveryWindow   string
	DisabledFeatures []string
	IsModerated      bool
	Subscription     subscriptionView
	WorkingDays      []string
	Zones            []flex.Zone
}

type addressView struct {
	ID          Long
	AddressLine string
	City        flex.City
	ZipCode     string
}

type availablesView struct {
	CapacityRange rangeView
	Cutoff        []int32
	Ranges        []int32
}

type rangeView struct{ From, To int32 }

type deliveryRangesView struct {
	Week     []deliveryRangeView
	Saturday *[]deliveryRangeView
	Sunday   *[]deliveryRangeView
}

type deliveryRangeView struct {
	CalculatedCutoff int32
	Capacity         int32
	EtHour           int32
	From             int32
	ProcessingTime   int32
	To               int32
	Type             string
}

type subscriptionView struct {
	CreationDate  string
	ServiceID     Long
	SiteID        string
	Status        flex.Status
	TrainingTimes *trainingTimesView
	UserID        Long
}

type trainingTimesView struct {
	Original       amountView
	Remaining      amountView
	ActivationDate *string
}

type amountView struct {
	Value int32
	Unit  string
}

// timeText is how every date of the API is written (encoding/json's form).
func timeText(t time.Time) string { return t.Format(time.RFC3339Nano) }

func viewOf(s flex.Subscription) *configurationView {
	c := s.Configuration
	v := &configurationView{
		Address: addressView{ID: Long(c.Address.ID), AddressLine: c.Address.AddressLine, City: c.Address.City, ZipCode: c.Address.ZipCode},
		Availables: availablesView{CapacityRange: rangeView{int32(c.Availables.CapacityRange.From), int32(c.Availables.CapacityRange.To)},
			Cutoff: ints32(c.Availables.Cutoff), Ranges: ints32(c.Availables.Ranges)},
		DeliveryRanges: deliveryRangesView{Week: rangesOf(c.DeliveryRanges.Week), Saturday: optionalRanges(c.DeliveryRanges.Saturday),
			Sunday: optionalRanges(c.DeliveryRanges.Sunday)},
		DeliveryWindow:   c.DeliveryWindow,
		DisabledFeatures: c.DisabledFeatures,
		IsModerated:      c.IsModerated,
		Subscription: subscriptionView{CreationDate: timeText(s.CreationDate), ServiceID: Long(s.ServiceID), SiteID: s.SiteID,
			Status: s.Status, UserID: Long(s.UserID)},
		WorkingDays: c.WorkingDays,
		Zones:       c.Zones,
	}
	if t := c.TrainingTimes; t != nil {
		tv := &trainingTimesView{Original: amountView{int32(t.Original.Value), t.Original.Unit},
			Remaining: amountView{int32(t.Remaining.Value), t.Remaining.Unit}}
		if t.ActivationDate != nil {
			at := timeText(*t.ActivationDate)
			tv.ActivationDate = &at
		}
		v.Subscription.TrainingTimes = tv
	}
	return v
}

func ints32(v []int) []int32 {
	out := make([]int32, len(v))
	for i, n := range v {
		out[i] = int32(n)
	}
	return out
}

func rangesOf(rs []flex.DeliveryRange) []deliveryRangeView {
	out := make([]deliveryRangeView, len(rs))
	for i, r := range rs {
		out[i] = deliveryRangeView{int32(r.CalculatedCutoff), int32(r.Capacity), int32(r.EtHour), int32(r.From),
			int32(r.ProcessingTime), int32(r.To), r.Type}
	}
	return out
}

// optionalRanges keeps "no delivery that day" as null.
func optionalRanges(rs []flex.DeliveryRange) *[]deliveryRangeView {
	if rs == nil {
		return nil
	}
	out := rangesOf(rs)
	return &out
}
