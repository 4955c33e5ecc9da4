//go:build go1.24

package gateway

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	jsoniter "github.com/json-iterator/go"
	"github.com/minio/simdjson-go"
)

// An Order is the 1.2 KB structured document of BenchmarkParse (article
// D §4.3: “输入为1.2KB结构化JSON(含嵌套数组与浮点字段)”, a 1.2 KB structured
// JSON with nested arrays and float fields).
type Order struct {
	ID        int64       `json:"id"`
	Number    string      `json:"number"`
	Status    string      `json:"status"`
	Currency  string      `json:"currency"`
	CreatedAt string      `json:"created_at"`
	Customer  Customer    `json:"customer"`
	Ship      Address     `json:"shipping_address"`
	Items     []OrderItem `json:"items"`
	Subtotal  float64     `json:"subtotal"`
	Tax       float64     `json:"tax"`
	Shipping  float64     `json:"shipping_cost"`
	Total     float64     `json:"total"`
	Tags      []string    `json:"tags"`
	Gift      bool        `json:"gift"`
}

// A Customer is an Order's customer.
type Customer struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Tier  string `json:"tier"`
}

// An Address is an Order's shipping address.
type Address struct {
	Name     string `json:"name"`
	Street   string `json:"street"`
	City     string `json:"city"`
	Postcode string `json:"postcode"`
	Country  string `json:"country"`
}

// An OrderItem is one line of an Order.
type OrderItem struct {
	Line      int64   `json:"line"`
	SKU       string  `json:"sku"`
	Name      string  `json:"name"`
	Quantity  int64   `json:"quantity"`
	UnitPrice float64 `json:"unit_price"`
	Discount  float64 `json:"discount"`
}

// orderDoc is the document BenchmarkParse parses, about 1.2 KB.
var orderDoc = func() []byte {
	o := Order{ID: 1042, Number: "ORD-2024-001042", Status: "shipped", Currency: "EUR", CreatedAt: "2024-11-28T09:14:07.512Z",
		Customer: Customer{ID: 77, Name: "Ada Lovelace", Email: "ada.lovelace@example.com", Tier: "gold"},
		Ship:     Address{Name: "Ada Lovelace", Street: "12 Analytical Engine Lane", City: "London", Postcode: "NW1 6XE", Country: "GB"},
		Subtotal: 186.4, Tax: 37.28, Shipping: 4.99, Total: 228.67, Tags: []string{"priority", "gift-wrap", "eu"}, Gift: true}
	for i := range 6 {
		o.Items = append(o.Items, OrderItem{Line: int64(i + 1), SKU: "SKU-" + strconv.Itoa(40100+37*i), Name: "Difference engine part no. " + strconv.Itoa(i+1),
			Quantity: int64(1 + i%3), UnitPrice: 12.5 + 3.25*float64(i), Discount: 0.05 * float64(i%2)})
	}
	b, err := json.Marshal(o)
	if err != nil {
		panic(err)
	}
	return b
}()

// parsers are BenchmarkParse's codecs: each reads orderDoc into an Order.
var parsers = []struct {
	name  string
	parse func(data []byte, o *Order, state *parseState) error
	skip  func() string // why the codec cannot run here; "" when it can
}{
	{"std", func(d []byte, o *Order, _ *parseState) error { return json.Unmarshal(d, o) }, nil},
	{"jsoniter", func(d []byte, o *Order, _ *parseState) error { return jsoniterStd.Unmarshal(d, o) }, nil},
	{"simdjson", simdParse, func() string {
		if !simdjson.SupportedCPU() {
			return "simdjson-go needs a CPU with AVX2 and CLMUL (amd64); this one lacks them"
		}
		return ""
	}},
}

var jsoniterStd = jsoniter.ConfigCompatibleWithStandardLibrary

// parseState is what a codec keeps from one parse to the next, as a
// server's handler would: simdjson-go's parsed tape, reused.
type parseState struct{ pj *simdjson.ParsedJson }

// simdParse parses data with simdjson-go (its tape reused) and reads the
// fields into o.
func simdParse(data []byte, o *Order, st *parseState) error {
	pj, err := simdjson.Parse(data, st.pj, simdjson.WithCopyStrings(false))
	if err != nil {
		return err
	}
	st.pj = pj
	iter := pj.Iter()
	iter.Advance()
	_, root, err := iter.Root(nil)
	if err != nil {
		return err
	}
	obj, err := root.Object(nil)
	if err != nil {
		return err
	}
	*o = Order{}
	var ferr error
	keep := func(err error) {
		if err != nil && ferr == nil {
			ferr = err
		}
	}
	str := func(i *Iter, dst *string) {
		s, err := i.String()
		keep(err)
		*dst = s
	}
	err = obj.ForEach(func(key []byte, i Iter) {
		switch string(key) {
		case "id":
			o.ID, err = i.Int()
			keep(err)
		case "number":
			str(&i, &o.Number)
		case "status":
			str(&i, &o.Status)
		case "currency":
			str(&i, &o.Currency)
		case "created_at":
			str(&i, &o.CreatedAt)
		case "customer":
			c, err := i.Object(nil)
			if err != nil {
				keep(err)
				return
			}
			keep(c.ForEach(func(k []byte, i Iter) {
				switch string(k) {
				case "id":
					o.Customer.ID, err = i.Int()
					keep(err)
				case "name":
					str(&i, &o.Customer.Name)
				case "email":
					str(&i, &o.Customer.Email)
				case "tier":
					str(&i, &o.Customer.Tier)
				}
			}, nil))
		case "shipping_address":
			a, err := i.Object(nil)
			if err != nil {
				keep(err)
				return
			}
			keep(a.ForEach(func(k []byte, i Iter) {
				switch string(k) {
				case "name":
					str(&i, &o.Ship.Name)
				case "street":
					str(&i, &o.Ship.Street)
				case "city":
					str(&i, &o.Ship.City)
				case "postcode":
					str(&i, &o.Ship.Postcode)
				case "country":
					str(&i, &o.Ship.Country)
				}
			}, nil))
		case "items":
			arr, err := i.Array(nil)
			if err != nil {
				keep(err)
				return
			}
			arr.ForEach(func(i Iter) {
				it, err := i.Object(nil)
				if err != nil {
					keep(err)
					return
				}
				var item OrderItem
				keep(it.ForEach(func(k []byte, i Iter) {
					switch string(k) {
					case "line":
						item.Line, err = i.Int()
					case "sku":
						str(&i, &item.SKU)
					case "name":
						str(&i, &item.Name)
					case "quantity":
						item.Quantity, err = i.Int()
					case "unit_price":
						item.UnitPrice, err = i.Float()
					case "discount":
						item.Discount, err = i.Float()
					}
					keep(err)
				}, nil))
				o.Items = append(o.Items, item)
			})
		case "subtotal":
			o.Subtotal, err = i.Float()
			keep(err)
		case "tax":
			o.Tax, err = i.Float()
			keep(err)
		case "shipping_cost":
			o.Shipping, err = i.Float()
			keep(err)
		case "total":
			o.Total, err = i.Float()
			keep(err)
		case "tags":
			arr, err := i.Array(nil)
			if err != nil {
				keep(err)
				return
			}
			o.Tags = []string{}
			arr.ForEach(func(i Iter) {
				var s string
				str(&i, &s)
				o.Tags = append(o.Tags, s)
			})
		case "gift":
			o.Gift, err = i.Bool()
			keep(err)
		}
	}, nil)
	if err != nil {
		return err
	}
	return ferr
}

// Iter is simdjson-go's iterator, named for the closures above.
type Iter = simdjson.Iter

// BenchmarkParse parses the 1.2 KB order document into an Order per op,
// with encoding/json, jsoniter (ConfigCompatibleWithStandardLibrary) or
// simdjson-go (its tape reused from op to op, every field read into the
// struct):
//
//	BenchmarkParse/sweep=0/codec=<std|jsoniter|simdjson>
//
// Each codec's Order must equal encoding/json's before it is timed.
func BenchmarkParse(b *testing.B) {
	sweep(b, []float64{0}, "nothing", func(b *testing.B, _ float64) {
		var want Order
		if err := json.Unmarshal(orderDoc, &want); err != nil {
			b.Fatal(err)
		}
		for _, p := range parsers {
			b.Run("codec="+p.name, func(b *testing.B) {
				if p.skip != nil {
					if why := p.skip(); why != "" {
						b.Skip(why)
					}
				}
				var st parseState
				var got Order
				if err := p.parse(orderDoc, &got, &st); err != nil {
					b.Fatalf("perflab: incorrect: %s: %v", p.name, err)
				}
				if !reflect.DeepEqual(got, want) {
					b.Fatalf("perflab: incorrect: %s reads %+v, encoding/json %+v", p.name, got, want)
				}
				b.SetBytes(int64(len(orderDoc)))
				b.ReportAllocs()
				for b.Loop() {
					var o Order
					if err := p.parse(orderDoc, &o, &st); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// TestParsers: every codec reads the order document as encoding/json
// does, and the document is the article's size.
func TestParsers(t *testing.T) {
	if n := len(orderDoc); n < 1000 || n > 1400 {
		t.Errorf("the order document is %d bytes, want about 1.2 KB", n)
	}
	var want Order
	if err := json.Unmarshal(orderDoc, &want); err != nil {
		t.Fatal(err)
	}
	for _, p := range parsers {
		if p.skip != nil && p.skip() != "" {
			t.Logf("%s: %s", p.name, p.skip())
			continue
		}
		var st parseState
		for range 2 { // the second reuses simdjson-go's tape
			var got Order
			if err := p.parse(orderDoc, &got, &st); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s reads\n%+v\nwant\n%+v", p.name, got, want)
			}
		}
	}
	if err := simdParse([]byte(`{"id": "x"}`), new(Order), new(parseState)); err == nil && simdjson.SupportedCPU() {
		t.Error("simdjson: a string id was read without an error")
	}
}
