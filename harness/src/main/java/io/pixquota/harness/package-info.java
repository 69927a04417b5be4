/**
 * What the demo and the benchmarks both need to stage a scenario, and nothing of the SDK: private
 * {@code redis-server} processes, replica JVMs and their READY / GO / RESULT line protocol, a count of the commands
 * Redis receives, and when each request left. No test library here: runnable jars carry it.
 */
package io.pixquota.harness;

