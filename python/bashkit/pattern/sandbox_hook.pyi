from .. import GitIdentity as GitIdentity
