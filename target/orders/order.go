package orders

import "time"

// Order is the document GET /order/{id} returns: about 1.2 KB of JSON with
// its line items.
//
//easyjson:json
type Order struct {
	ID           int64     `json:"id"`
	Number       string    `json:"number"`
	Status       string    `json:"status"`
	Currency     string    `json:"currency"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	Customer     Customer  `json:"customer"`
	Shipping     Address   `json:"shipping"`
	Items        []Item    `json:"items"`
	Subtotal     int64     `json:"subtotal"`
	Tax          int64     `json:"tax"`
	ShippingCost int64     `json:"shipping_cost"`
	Total        int64     `json:"total"`
	Notes        string    `json:"notes"`
}

// Customer is the buyer of an order.
type Customer struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Tier  string `json:"tier"`
}

// Address is a shipping address.
type Address struct {
	Name     string `json:"name"`
	Street   string `json:"street"`
	City     string `json:"city"`
	Postcode string `json:"postcode"`
	Country  string `json:"country"`
}

// Item is one line of an order. Prices are in the currency's minor unit.
type Item struct {
	Line      int    `json:"line"`
	SKU       string `json:"sku"`
	Name      string `json:"name"`
	Quantity  int    `json:"quantity"`
	UnitPrice int64  `json:"unit_price"`
	Total     int64  `json:"total"`
}
