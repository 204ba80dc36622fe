// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Verifies a wallet-vault signature exactly as decisions.md defines it:
/// digest = keccak256(abi.encode(uniq, nonce, msg.sender, message)), signed directly (no prefix),
/// with message = abi.encode(msg.sig, ...args). A signature is usable once.
abstract contract Signable {
    struct Signature {
        bytes32 nonce;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    uint256 private constant HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    bytes32 public uniq;
    address public signer;
    mapping(bytes32 => bool) public used;
    uint256 public calls;

    event Verified(bytes4 selector, bytes32 submissionHash);

    constructor(address signer_, bytes32 uniq_) {
        signer = signer_;
        uniq = uniq_;
    }

    /// Test hook for signer rotation.
    function setSigner(address signer_) external {
        signer = signer_;
    }

    function _verify(bytes memory message, Signature calldata sig) internal {
        require(sig.v == 27 || sig.v == 28, "bad v");
        require(uint256(sig.s) <= HALF_N, "high s");
        bytes32 digest = keccak256(abi.encode(uniq, sig.nonce, msg.sender, message));
        address recovered = ecrecover(digest, sig.v, sig.r, sig.s);
        require(recovered != address(0) && recovered == signer, "bad signature");
        bytes32 submissionHash = keccak256(abi.encode(sig.nonce, sig.r, sig.s, sig.v));
        require(!used[submissionHash], "signature used");
        used[submissionHash] = true;
        calls += 1;
        emit Verified(msg.sig, submissionHash);
    }
}
