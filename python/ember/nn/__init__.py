"""ember.nn: neural-network building blocks. So far the functional interface
(ember.nn.functional); modules come with the front-ends issue."""

from ember.nn import functional

__all__ = ["functional"]
