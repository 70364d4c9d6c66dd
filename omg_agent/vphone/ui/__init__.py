"""The vphone's view toolkit: a tree of views that is both what gets drawn and what
``uiautomator dump`` prints, so pixels and bounds always agree."""
