/**
 * The Java of README.md and {@code docs/}, each snippet a region ({@code // region name} ... {@code // endregion}) of
 * a class here, so that the build compiles what users copy; the tests of this module hold the Markdown to these
 * sources as they are. Nothing here is part of the SDK.
 */
package io.pixquota.snippets;
