"""vphone: a virtual Android phone that speaks the real ADB device protocol.

A regular package (not a namespace one) so that tools reading the source, such as the docs
site's API reference, find its modules; docs/guide/vphone.md shows how to use it.
"""
