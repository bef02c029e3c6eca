package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// clockTick is the unit of /proc/<pid>/stat's CPU times (USER_HZ, 100 on
// every Linux this runs on).
const clockTick = 10 * time.Millisecond

// cpuUse is CPU time used by this process (the API, the bare handlers and
// the load generator) and by the PostgreSQL backends connected to the
// benchmark's database. On a machine others share, what a request costs in
// CPU moves far less than requests per second do, and the backends' share
// says what the writes themselves cost the database.
type cpuUse struct{ process, database time.Duration }

func (c cpuUse) sub(d cpuUse) cpuUse { return cpuUse{c.process - d.process, c.database - d.database} }
func (c cpuUse) add(d cpuUse) cpuUse { return cpuUse{c.process + d.process, c.database + d.database} }

// cpuNow reads the CPU time used so far, the database's from the
// backends' /proc entries (so only with PostgreSQL on this machine, and
// zero otherwise). A backend that exits between two readings takes its
// time with it; the benchmark's pools keep theirs open.
func cpuNow(db *gorm.DB) cpuUse {
	use := cpuUse{process: processCPU()}
	var pids []int
	if db.Raw(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`).
		Scan(&pids).Error != nil {
		return use
	}
	for _, pid := range pids {
		use.database += procCPU(pid)
	}
	return use
}

// procCPU is the user and system time of process pid, or zero.
func procCPU(pid int) time.Duration {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command, which may hold spaces, in brackets:
	// state is the first, utime the 12th and stime the 13th.
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * clockTick
}

// cpuPerRequest is the CPU time a request of r took, over its slices.
func (r result) cpuPerRequest() cpuUse {
	n := time.Duration(max(r.sent, 1))
	return cpuUse{(r.cpu.process / n).Round(time.Microsecond), (r.cpu.database / n).Round(time.Microsecond)}
}

// printCPU prints what a request of r cost in CPU.
func printCPU(name, target string, r result) {
	per := r.cpuPerRequest()
	fmt.Printf("%-34s %-16s %4s CPU per request: %s this process (server, load), %s PostgreSQL\n", name, target, "", per.process, per.database)
}
