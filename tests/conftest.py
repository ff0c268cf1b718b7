import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

SHARED = Path(__file__).resolve().parents[2] / "shared"
REAL_DEMS = SHARED / "data" / "real_dems"


@pytest.fixture
def real_dems() -> Path:
    if not REAL_DEMS.is_dir():
        pytest.skip("shared/data/real_dems is not present")
    return REAL_DEMS
