/**
 * Implementation details shared by the throttle's modules (the bucket's step, its validation of stored state, time,
 * argument checks); nothing here is public API, and any of it may change without notice. It depends on no other
 * package of the project.
 */
package io.pixquota.throttle.internal;

