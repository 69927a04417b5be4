/**
 * The reference scenario: {@link io.pixquota.demo.DemoMain} starts Redis and the mock BACEN when none is given, then
 * runs {@link io.pixquota.demo.ReplicaCommand} in separate JVMs, straight at the mock and through the shared bucket,
 * and prints the two side by side.
 */
package io.pixquota.demo;

