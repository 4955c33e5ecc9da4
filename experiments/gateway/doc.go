// Package gateway is the workload of the gateway experiment: article D's
// API-gateway micro-claims, measured in-process and over loopback.
package gateway
