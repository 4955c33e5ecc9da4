package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

// NumOrders is how many orders a seeded database holds; ids run from 1 to
// NumOrders.
const NumOrders = 100_000

// seedCount is how many orders seed writes and a database must hold to
// count as seeded; tests lower it.
var seedCount int64 = NumOrders

// schemaVersion names the database file, so a change of schema or seed
// data never reads an old file.
const schemaVersion = 1

// DefaultDBPath is where the order database lives unless told otherwise:
// orders-v<N>.sqlite under $PERFLAB_CACHE, or under perflab in the user
// cache directory.
func DefaultDBPath() (string, error) {
	dir := os.Getenv("PERFLAB_CACHE")
	if dir == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("finding a cache directory for the order database (set PERFLAB_CACHE): %w", err)
		}
		dir = filepath.Join(d, "perflab")
	}
	return filepath.Join(dir, "orders", fmt.Sprintf("orders-v%d.sqlite", schemaVersion)), nil
}

const schema = `
CREATE TABLE orders (
	id INTEGER PRIMARY KEY,
	number TEXT NOT NULL,
	status TEXT NOT NULL,
	currency TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	customer_id INTEGER NOT NULL,
	customer_name TEXT NOT NULL,
	customer_email TEXT NOT NULL,
	customer_tier TEXT NOT NULL,
	ship_name TEXT NOT NULL,
	ship_street TEXT NOT NULL,
	ship_city TEXT NOT NULL,
	ship_postcode TEXT NOT NULL,
	ship_country TEXT NOT NULL,
	subtotal INTEGER NOT NULL,
	tax INTEGER NOT NULL,
	shipping_cost INTEGER NOT NULL,
	total INTEGER NOT NULL,
	notes TEXT NOT NULL
);
CREATE TABLE items (
	order_id INTEGER NOT NULL,
	line INTEGER NOT NULL,
	sku TEXT NOT NULL,
	name TEXT NOT NULL,
	quantity INTEGER NOT NULL,
	unit_price INTEGER NOT NULL,
	PRIMARY KEY (order_id, line)
) WITHOUT ROWID;
`

// EnsureDB makes sure a seeded order database exists at path, creating it
// on first use: NumOrders orders with 3 to 8 line items each, generated
// from a fixed seed, so every machine serves the same documents. The file
// is written under a temporary name and renamed into place, so a
// half-written database is never used.
func EnsureDB(ctx context.Context, path string) error {
	if ok, err := seeded(ctx, path); err == nil && ok {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating the order database's directory: %w", err)
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	if ok, err := seeded(ctx, path); err == nil && ok {
		return nil // another process seeded it while we waited
	}
	tmp := fmt.Sprintf("%s.tmp-%d", path, os.Getpid())
	_ = os.Remove(tmp)
	defer os.Remove(tmp)
	if err := seed(ctx, tmp); err != nil {
		return fmt.Errorf("seeding the order database at %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("moving the seeded order database into place: %w", err)
	}
	return nil
}

func seeded(ctx context.Context, path string) (bool, error) {
	if _, err := os.Stat(path); err != nil {
		return false, err
	}
	db, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return false, err
	}
	defer db.Close()
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM orders").Scan(&n); err != nil {
		return false, err
	}
	return n >= seedCount, nil
}

func dsn(path string, readOnly bool) string {
	u := url.URL{Scheme: "file", Path: path}
	q := url.Values{}
	if readOnly {
		q.Set("mode", "ro")
		q.Add("_pragma", "query_only(1)")
	}
	q.Add("_pragma", "busy_timeout(5000)")
	u.RawQuery = q.Encode()
	return u.String()
}

var (
	firstNames = []string{"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Niklaus", "Radia", "Tony", "Leslie", "Sophie", "Dennis", "Lynn"}
	lastNames  = []string{"Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton", "Wirth", "Perlman", "Hoare", "Lamport", "Wilson", "Ritchie", "Conway"}
	cities     = []struct{ city, country string }{{"Berlin", "DE"}, {"Lyon", "FR"}, {"Porto", "PT"}, {"Utrecht", "NL"}, {"Graz", "AT"}, {"Bologna", "IT"}, {"Gdansk", "PL"}, {"Tartu", "EE"}}
	streets    = []string{"Lindenstrasse", "Rue de la Paix", "Rua das Flores", "Oudegracht", "Herrengasse", "Via Zamboni", "Dluga", "Ruutli"}
	products   = []string{"Mechanical keyboard, brown switches", "USB-C docking station", "27-inch monitor arm", "Noise-cancelling headphones", "Ergonomic office chair", "Laptop stand, aluminium", "Wireless mouse", "4K webcam with privacy cover", "Standing desk mat", "Cable management kit", "LED desk lamp, dimmable", "Portable SSD 1 TB"}
	statuses   = []string{"pending", "paid", "packed", "shipped", "delivered"}
	tiers      = []string{"standard", "silver", "gold"}
	notes      = []string{"Leave the parcel with the neighbour if nobody is home.", "Gift wrap, no invoice in the box please.", "Deliver between 9 and 12 on weekdays.", "Call ahead; the doorbell is broken."}
)

// genOrder derives order id deterministically from the seed.
func genOrder(id int64) Order {
	r := rand.New(rand.NewPCG(uint64(id), 0x5eed))
	first, last := firstNames[r.IntN(len(firstNames))], lastNames[r.IntN(len(lastNames))]
	c := cities[r.IntN(len(cities))]
	created := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(365 * 24 * time.Hour)))).Truncate(time.Second)
	o := Order{
		ID:        id,
		Number:    fmt.Sprintf("ORD-2024-%07d", id),
		Status:    statuses[r.IntN(len(statuses))],
		Currency:  "EUR",
		CreatedAt: created,
		UpdatedAt: created.Add(time.Duration(r.Int64N(int64(72 * time.Hour)))).Truncate(time.Second),
		Customer: Customer{
			ID:    1 + r.Int64N(40_000),
			Name:  first + " " + last,
			Email: strings.ToLower(first+"."+last) + "@example.com",
			Tier:  tiers[r.IntN(len(tiers))],
		},
		Shipping: Address{
			Name:     first + " " + last,
			Street:   fmt.Sprintf("%s %d", streets[r.IntN(len(streets))], 1+r.IntN(180)),
			City:     c.city,
			Postcode: fmt.Sprintf("%05d", r.IntN(100_000)),
			Country:  c.country,
		},
		Notes: notes[r.IntN(len(notes))],
	}
	n := 3 + r.IntN(6)
	for line := 1; line <= n; line++ {
		p := r.IntN(len(products))
		it := Item{
			Line:      line,
			SKU:       fmt.Sprintf("SKU-%05d", p*1000+r.IntN(1000)),
			Name:      products[p],
			Quantity:  1 + r.IntN(4),
			UnitPrice: int64(499 + r.IntN(40_000)),
		}
		it.Total = int64(it.Quantity) * it.UnitPrice
		o.Subtotal += it.Total
		o.Items = append(o.Items, it)
	}
	o.Tax = o.Subtotal * 19 / 100
	o.ShippingCost = int64(495 * (r.IntN(2)))
	o.Total = o.Subtotal + o.Tax + o.ShippingCost
	return o
}

func seed(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF", schema} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	insOrder, err := tx.PrepareContext(ctx, `INSERT INTO orders VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
	if err != nil {
		return err
	}
	insItem, err := tx.PrepareContext(ctx, `INSERT INTO items VALUES (?,?,?,?,?,?)`)
	if err != nil {
		return err
	}
	for id := int64(1); id <= seedCount; id++ {
		o := genOrder(id)
		_, err := insOrder.ExecContext(ctx, o.ID, o.Number, o.Status, o.Currency, o.CreatedAt.Unix(), o.UpdatedAt.Unix(),
			o.Customer.ID, o.Customer.Name, o.Customer.Email, o.Customer.Tier,
			o.Shipping.Name, o.Shipping.Street, o.Shipping.City, o.Shipping.Postcode, o.Shipping.Country,
			o.Subtotal, o.Tax, o.ShippingCost, o.Total, o.Notes)
		if err != nil {
			return err
		}
		for _, it := range o.Items {
			if _, err := insItem.ExecContext(ctx, o.ID, it.Line, it.SKU, it.Name, it.Quantity, it.UnitPrice); err != nil {
				return err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, "ANALYZE")
	return err
}

// ErrNotFound is returned for an order id the database does not hold.
var ErrNotFound = errors.New("order not found")

// Store reads orders from the database.
type Store struct {
	db           *sql.DB
	order, items *sql.Stmt
}

const (
	orderQuery = `SELECT id, number, status, currency, created_at, updated_at,
		customer_id, customer_name, customer_email, customer_tier,
		ship_name, ship_street, ship_city, ship_postcode, ship_country,
		subtotal, tax, shipping_cost, total, notes FROM orders WHERE id = ?`
	itemsQuery = `SELECT line, sku, name, quantity, unit_price FROM items WHERE order_id = ? ORDER BY line`
)

// OpenStore opens the seeded database at path read-only, with its two
// queries prepared (database/sql prepares them again on every new
// connection). With sized set the connection pool is sized for the load
// (as many idle connections kept as may be open); otherwise database/sql's
// defaults apply (no limit on open connections, two kept idle), so a burst
// of concurrent requests opens, prepares and closes connections.
func OpenStore(ctx context.Context, path string, sized bool, procs int) (*Store, error) {
	db, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return nil, fmt.Errorf("opening the order database: %w", err)
	}
	if sized {
		n := max(8, 4*procs)
		db.SetMaxOpenConns(n)
		db.SetMaxIdleConns(n)
		db.SetConnMaxLifetime(30 * time.Minute)
	}
	s := &Store{db: db}
	if s.order, err = db.PrepareContext(ctx, orderQuery); err == nil {
		s.items, err = db.PrepareContext(ctx, itemsQuery)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("preparing the order queries: %w", err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Get reads order id with its items.
func (s *Store) Get(ctx context.Context, id int64) (*Order, error) {
	var o Order
	var created, updated int64
	err := s.order.QueryRowContext(ctx, id).Scan(
		&o.ID, &o.Number, &o.Status, &o.Currency, &created, &updated,
		&o.Customer.ID, &o.Customer.Name, &o.Customer.Email, &o.Customer.Tier,
		&o.Shipping.Name, &o.Shipping.Street, &o.Shipping.City, &o.Shipping.Postcode, &o.Shipping.Country,
		&o.Subtotal, &o.Tax, &o.ShippingCost, &o.Total, &o.Notes)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading order %d: %w", id, err)
	}
	o.CreatedAt, o.UpdatedAt = time.Unix(created, 0).UTC(), time.Unix(updated, 0).UTC()
	rows, err := s.items.QueryContext(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("reading the items of order %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var it Item
		if err := rows.Scan(&it.Line, &it.SKU, &it.Name, &it.Quantity, &it.UnitPrice); err != nil {
			return nil, fmt.Errorf("reading the items of order %d: %w", id, err)
		}
		it.Total = int64(it.Quantity) * it.UnitPrice
		o.Items = append(o.Items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the items of order %d: %w", id, err)
	}
	return &o, nil
}
