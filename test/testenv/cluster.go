package testenv

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// ClusterMasters is how many masters RedisClusterURL starts: the smallest
// cluster redis-cli creates, and enough that keys of one request land on
// different nodes unless a hash tag keeps them together.
const ClusterMasters = 3

// RedisClusterURL starts a Redis Cluster of the test's own from this
// machine's redis-server and redis-cli (three masters on free ports of
// 127.0.0.1, no replica, nothing written to disk but the nodes' files in a
// temporary directory), stopped when the test ends, and returns its
// REDIS_URL (redis+cluster://host1:port,host2:port,host3:port). Never a
// skip: without redis-server the test fails and says how to install it.
func RedisClusterURL(t testing.TB) string {
	t.Helper()
	server, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("testenv: a Redis Cluster is started from this machine's redis-server, which is not on PATH (apt-get install redis-server): %v", err)
	}
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Fatalf("testenv: a Redis Cluster is created with redis-cli, which is not on PATH (apt-get install redis-tools): %v", err)
	}
	dir := t.TempDir()
	ports := freePorts(t, 2*ClusterMasters) // a client port and a bus port per node
	addrs := make([]string, ClusterMasters)
	for i := range addrs {
		port, bus := ports[2*i], ports[2*i+1]
		addrs[i] = fmt.Sprintf("127.0.0.1:%d", port)
		logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("node-%d.log", port)))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(server, "--port", fmt.Sprint(port), "--cluster-port", fmt.Sprint(bus), "--bind", "127.0.0.1",
			"--cluster-enabled", "yes", "--cluster-config-file", fmt.Sprintf("nodes-%d.conf", port), "--dir", dir,
			"--cluster-node-timeout", "2000", "--save", "", "--appendonly", "no")
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatalf("testenv: redis-server: %v", err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill() //nolint:errcheck // the test is over
			cmd.Wait()         //nolint:errcheck // killed
			logf.Close()
			if t.Failed() {
				b, _ := os.ReadFile(logf.Name())
				t.Logf("cluster node %s log:\n%s", addrs[i], b)
			}
		})
		waitPing(t, addrs[i])
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(c, cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("testenv: redis-cli --cluster create: %v\n%s", err, out)
	}
	// Every node must know every slot's owner before a client asks it.
	deadline := time.Now().Add(30 * time.Second)
	for _, a := range addrs {
		n := redis.NewClient(&redis.Options{Addr: a})
		for {
			info, err := n.ClusterInfo(context.Background()).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, "cluster_slots_assigned:16384") &&
				strings.Contains(info, fmt.Sprintf("cluster_known_nodes:%d", ClusterMasters)) {
				break
			}
			if time.Now().After(deadline) {
				n.Close()
				t.Fatalf("testenv: the Redis Cluster on %v is not ready after 30 s: %s (%v)", addrs, info, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		n.Close()
	}
	return "redis+cluster://" + strings.Join(addrs, ",")
}

// RedisCluster returns a client of a Redis Cluster of the test's own
// (RedisClusterURL).
func RedisCluster(t testing.TB) *redis.ClusterClient {
	t.Helper()
	u := RedisClusterURL(t)
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(strings.TrimPrefix(u, "redis+cluster://"), ",")})
	t.Cleanup(func() { c.Close() })
	if err := c.ForEachShard(ctx(t), func(ctx context.Context, n *redis.Client) error { return n.Ping(ctx).Err() }); err != nil {
		t.Fatalf("testenv: redis cluster: %v", err)
	}
	return c
}

// freePorts returns n distinct ports of 127.0.0.1 that were free a moment
// ago (held together, so that none is returned twice).
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for len(ports) < n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

func waitPing(t testing.TB, addr string) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	for i := 0; ; i++ {
		if err := c.Ping(context.Background()).Err(); err == nil {
			return
		} else if i == 100 {
			t.Fatalf("testenv: redis-server on %s does not answer: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
