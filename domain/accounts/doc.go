// Package accounts holds organizations, users, memberships and API keys:
// who may call the API, as the request pipeline and the admin CLI read
// and write them.
package accounts
