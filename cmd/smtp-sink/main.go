// Command smtp-sink accepts all mail on a local port and keeps it as .eml
// files, standing in for a relay in the development stack (`make run`).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"ppwr/internal/smtpsink"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:1025", "address to listen on")
	dir := flag.String("dir", ".data/mail", `directory for received messages (.eml); "" keeps them in memory only`)
	flag.Parse()

	sink, err := smtpsink.Start(*addr, *dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "smtp-sink:", err)
		os.Exit(1)
	}
	where := *dir
	if where == "" {
		where = "memory only"
	}
	log.Printf("smtp-sink listening on %s, storing messages in %s", sink.Addr(), where)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	sig := <-stop
	log.Printf("smtp-sink: %s received, shutting down", sig)
	if err := sink.Close(); err != nil {
		log.Printf("smtp-sink: close: %v", err)
		os.Exit(1)
	}
}
