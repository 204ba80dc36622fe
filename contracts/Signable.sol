// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

import {ISignable} from "./ISignable.sol";

/// Checks a wallet-vault signature exactly as the vault makes it (docs/signing.md):
///
///     message = abi.encode(msg.sig, ...the call's other arguments, in order)
///     digest  = keccak256(abi.encode(uniq, sig.nonce, msg.sender, message))   (no "\x19Ethereum" prefix)
///
/// signed by `signer` with a low s and v of 27 or 28. A signature is accepted once. The digest binds
/// `uniq`, the sender, the function and its arguments; it does not bind the chain or this contract's
/// address by itself: `uniq` does, when it is unique to this contract on this chain. Pass 0 as `uniq_`
/// to have it derived as keccak256(abi.encode(block.chainid, address(this))).
abstract contract Signable is ISignable {
    /// secp256k1's n / 2: a signature with a higher s is the malleable twin of another.
    uint256 private constant HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    bytes32 public immutable uniq;
    address public signer;
    mapping(bytes32 => bool) public used;

    constructor(address signer_, bytes32 uniq_) {
        require(signer_ != address(0), "Signable: zero signer");
        signer = signer_;
        uniq = uniq_ == bytes32(0) ? keccak256(abi.encode(block.chainid, address(this))) : uniq_;
    }

    /// For the contract's own access-controlled rotation (see examples/SignableMint.sol).
    function _setSigner(address next) internal {
        require(next != address(0), "Signable: zero signer");
        emit SignerChanged(signer, next);
        signer = next;
    }

    /// Reverts unless `sig` is the vault's signature over `message` for this call's sender; marks it used.
    function _verify(bytes memory message, Signature calldata sig) internal returns (bytes32 submissionHash) {
        require(sig.v == 27 || sig.v == 28, "Signable: bad v");
        require(uint256(sig.s) <= HALF_N, "Signable: high s");
        bytes32 digest = keccak256(abi.encode(uniq, sig.nonce, msg.sender, message));
        address recovered = ecrecover(digest, sig.v, sig.r, sig.s);
        require(recovered != address(0) && recovered == signer, "Signable: bad signature");
        submissionHash = keccak256(abi.encode(sig.nonce, sig.r, sig.s, sig.v));
        require(!used[submissionHash], "Signable: signature used");
        used[submissionHash] = true;
        emit Verified(msg.sig, submissionHash);
    }
}
