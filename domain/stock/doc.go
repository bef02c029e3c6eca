// Package stock is the stock ledger: movements appended per item and the
// balances derived from them under row locks, so no two requests take the
// same stock.
package stock
