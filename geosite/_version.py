"""The version of geosite, in one place: the package face (:mod:`geosite`) re-exports it, the build reads it
(pyproject.toml ``[tool.setuptools.dynamic]``), and the rooms that stamp it on their outputs import it from
here, not from the package face above them.
"""

__version__ = "0.1.0"
