/** Implementation details; nothing here is public API, and any of it may change without notice. */
package io.pixquota.bacen.internal;
